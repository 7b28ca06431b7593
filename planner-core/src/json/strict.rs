//! JSON text to [`Value`], refusing duplicate object keys at every level and
//! naming where any error stopped the read.
//!
//! `serde_json::from_str::<Value>` keeps the last of duplicate keys silently,
//! so `{"k_max": 1, "k_max": 64}` would plan with 64. This reader builds the
//! same [`Value`] but stops at the first repeated key and reports its path
//! (`surrogate.affine.fixed_ms`, `intervals[2]`-style for arrays, the bare key
//! at the top level). Any other error (a number out of range, an invalid
//! escape, a missing comma, nesting past serde_json's recursion limit) is
//! reported with the path of the innermost value being read when it arose:
//! `"epsilon": 1e999` stops at `epsilon`, `[[0, 10] [20, 30]]` under
//! `intervals` at `intervals` (the array whose comma is missing), text after
//! the document at the document itself.

use core::cell::RefCell;
use core::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Where a read stopped.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Stop {
    /// Path of the innermost value being read (`surrogate.affine.fixed_ms`,
    /// `intervals[2]`); empty for the document itself and past its end.
    pub(super) at: String,
    /// Whether the stop is a repeated key (then `at` is that key's path).
    pub(super) duplicate: bool,
}

/// Parses `text`, or says where and why it stopped.
///
/// One pass over the text (serde_json's own reader); a path is built only
/// when an error is reported.
pub(super) fn parse(text: &str) -> Result<Value, (Stop, serde_json::Error)> {
    let stop = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Node {
        at: &Seg::Root,
        stop: &stop,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    value.map_err(|e| (stop.into_inner().unwrap_or_default(), e))
}

/// Where a value sits, built only when an error is reported (no allocation
/// per value).
enum Seg<'p> {
    Root,
    Key(&'p Seg<'p>, &'p str),
    Index(&'p Seg<'p>, usize),
}

impl fmt::Display for Seg<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seg::Root => Ok(()),
            Seg::Key(Seg::Root, k) => f.write_str(k),
            Seg::Key(parent, k) => write!(f, "{parent}.{k}"),
            Seg::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// One value being read, at `at`; the first error noted (the innermost
/// value's, as it unwinds) goes into `stop`.
struct Node<'p, 'd> {
    at: &'p Seg<'p>,
    stop: &'d RefCell<Option<Stop>>,
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let (at, stop) = (self.at, self.stop);
        d.deserialize_any(self).inspect_err(|_| {
            stop.borrow_mut().get_or_insert_with(|| Stop {
                at: at.to_string(),
                duplicate: false,
            });
        })
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let at = Seg::Index(self.at, out.len());
            let node = Node {
                at: &at,
                stop: self.stop,
            };
            match seq.next_element_seed(node)? {
                Some(v) => out.push(v),
                None => break,
            }
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = Seg::Key(self.at, &key);
            if out.contains_key(&key) {
                *self.stop.borrow_mut() = Some(Stop {
                    at: at.to_string(),
                    duplicate: true,
                });
                return Err(de::Error::custom("duplicate key"));
            }
            let v = map.next_value_seed(Node {
                at: &at,
                stop: self.stop,
            })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}
