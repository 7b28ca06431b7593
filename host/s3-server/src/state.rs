//! The server's shared state: storage, the live model and faults, the meter.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;
use warp_latency_model::{Model, SimulateConfig};

use crate::faults::{Fault, Faults};
use crate::meter::Meter;
use crate::settings;
use crate::storage::Storage;

/// What one GET drew.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drawn {
    /// The fault, if any.
    pub fault: Option<Fault>,
    /// A `delay` fault's extra wait.
    pub delay: Duration,
    /// A `stall` fault's pause.
    pub stall: Duration,
    /// The byte a `flip` fault changes.
    pub flip_at: u64,
}

#[derive(Debug)]
struct Live {
    model: Arc<Model>,
    faults: Faults,
}

/// Storage, settings and meter, shared by every connection.
#[derive(Debug)]
pub struct State {
    storage: Storage,
    live: Mutex<Live>,
    meter: Mutex<Meter>,
    started: Instant,
    max_request_body: u64,
}

impl State {
    /// A state over `storage` with `model` and `faults`; request bodies over
    /// `max_request_body` bytes are refused.
    pub fn new(
        storage: Storage,
        model: SimulateConfig,
        faults: Faults,
        max_request_body: u64,
    ) -> Self {
        Self {
            storage,
            live: Mutex::new(Live {
                model: Arc::new(Model::new(model)),
                faults,
            }),
            meter: Mutex::new(Meter::new()),
            started: Instant::now(),
            max_request_body,
        }
    }

    /// The storage.
    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    /// Largest request body accepted, bytes.
    pub fn max_request_body(&self) -> u64 {
        self.max_request_body
    }

    /// Seconds since the server started.
    pub fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    fn live(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The meter.
    pub fn meter(&self) -> MutexGuard<'_, Meter> {
        self.meter.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The model in force (a GET keeps the one it started with).
    pub fn model(&self) -> Arc<Model> {
        Arc::clone(&self.live().model)
    }

    /// Draws the fault of a GET of `key` with `Range` header `range`
    /// ([`Faults::draw`]), with the lengths it needs for a `len`-byte body.
    pub fn draw(&self, key: &str, range: &str, len: u64) -> Drawn {
        let mut live = self.live();
        let fault = live.faults.draw(key, range);
        let c = live.faults.config();
        let ms = |v: f64| Duration::from_secs_f64(v / 1000.0);
        Drawn {
            fault,
            delay: ms(c.delay_ms),
            stall: ms(c.stall_ms),
            flip_at: if fault == Some(Fault::Flip) {
                live.faults.flip_position(key, range, len)
            } else {
                0
            },
        }
    }

    /// The settings as JSON ([`settings::to_json`]).
    pub fn settings(&self) -> Value {
        let live = self.live();
        settings::to_json(live.model.config(), live.faults.config())
    }

    /// Applies a partial settings update ([`settings::apply`]); a changed
    /// model starts afresh (request numbering from 0, an idle link); fault
    /// repeat counts carry on. Returns the new settings.
    ///
    /// # Errors
    /// [`settings::apply`]'s message; nothing changes then.
    pub fn update(&self, patch: &Value) -> Result<Value, String> {
        let mut live = self.live();
        let (model, mut faults) =
            settings::apply(live.model.config(), live.faults.config(), patch)?;
        if model != *live.model.config() {
            live.model = Arc::new(Model::new(model));
        }
        std::mem::swap(&mut live.faults, &mut faults);
        live.faults.take_counts(faults);
        drop(live);
        Ok(self.settings())
    }

    /// Drops the records, windows and fault counts, forgets the repeat counts
    /// of the draws and restarts the model (same settings), so a rerun after
    /// a reset sees the same latencies and faults.
    pub fn reset(&self) {
        {
            let mut live = self.live();
            live.faults.reset_counts();
            live.model = Arc::new(Model::new(*live.model.config()));
        }
        self.meter().reset();
    }
}
