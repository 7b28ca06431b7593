//! The JSON of `POST /v1/search`: the request, its bounds, and errors that
//! name the field (`host/src/serve/openapi.json` is the contract; ARCHITECTURE §10).

use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use planner_core::json::{beyond_exact_integers, outside_integer_range};
use serde::Deserialize;
use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde_json::{Value, json};

use crate::cli::search_opts::MAX_K_MAX;
use crate::query::SearchParams;

/// Bounds on what one request may ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestBounds {
    /// Largest request body, bytes.
    pub max_body_bytes: usize,
    /// Most vectors in one `vectors` batch.
    pub max_batch: usize,
    /// Largest `k`.
    pub max_k: usize,
    /// Largest `nprobe`.
    pub max_nprobe: usize,
    /// Deadline of a request that names none.
    pub default_deadline: Duration,
    /// Largest `deadline_ms` honoured (a larger one is refused).
    pub max_deadline: Duration,
}

impl Default for RequestBounds {
    fn default() -> Self {
        Self {
            max_body_bytes: 4 << 20,
            max_batch: 64,
            max_k: 1000,
            max_nprobe: 4096,
            default_deadline: Duration::from_secs(10),
            max_deadline: Duration::from_secs(60),
        }
    }
}

/// A refused request: the HTTP status, the field at fault (if one is) and a
/// one-line message. Rendered as `{"error": "<message>", "field": <field>}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status.
    pub status: u16,
    /// The request field at fault, e.g. `k` or `vectors[3]`.
    pub field: Option<String>,
    /// What is wrong, one line.
    pub message: String,
}

impl ApiError {
    /// A `400` naming `field`.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        let field = field.into();
        let message = message.into();
        Self {
            status: 400,
            message: format!("{field}: {message}"),
            field: Some(field),
        }
    }

    /// An error of `status` not tied to a field.
    pub fn status(status: u16, message: impl Into<String>) -> Self {
        Self {
            status,
            field: None,
            message: message.into(),
        }
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        json!({"error": crate::error::one_line(&self.message), "field": self.field})
    }
}

/// The body of `POST /v1/search` as sent (every field optional but one of
/// `vector`/`vectors`); [`SearchRequest::validate`] checks it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// One query vector.
    pub vector: Option<Vec<f64>>,
    /// A batch of query vectors (answered in order).
    pub vectors: Option<Vec<Vec<f64>>>,
    /// Neighbours per query (default: the server's `--k`).
    pub k: Option<Integer<usize>>,
    /// Lists probed (default: the server's `--nprobe`).
    pub nprobe: Option<Integer<usize>>,
    /// Request budget `K_max` of each planned fetch, `1..=1048576`: at
    /// most that many GETs per fetch (hedges aside), which bounds the
    /// query's GET charge (default: the server's `--k-max`, else at most
    /// one per probed list).
    pub k_max: Option<Integer<usize>>,
    /// Planning method (a `warp query --method` spelling).
    pub method: Option<String>,
    /// Deadline of the whole request, ms, from its arrival.
    pub deadline_ms: Option<Integer<u64>>,
    /// Also return the planning instances and plans.
    pub explain: Option<bool>,
}

/// An integer field as sent: its value, or a number [beyond the integers
/// serde_json reads exactly](beyond_exact_integers) (an integer literal above
/// `u64` or below `i64`, which it reads as the nearest `f64`), refused by
/// [`SearchRequest::validate`] naming the field's range rather than echoed as
/// a float the body never held. Anything else that is not a `T` is refused
/// when parsing, in serde's words (`invalid type: floating point \`2.5\`,
/// expected usize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Integer<T> {
    /// The value sent.
    Value(T),
    /// A number beyond the integers serde_json reads exactly.
    OutOfRange,
}

impl<T> Integer<T> {
    /// The value, or for [`Integer::OutOfRange`] a 400 naming `field` and
    /// its range `lo..=hi` in the JSON contract's words.
    fn within(self, field: &str, lo: u64, hi: u64) -> Result<T, ApiError> {
        match self {
            Self::Value(v) => Ok(v),
            Self::OutOfRange => Err(ApiError::field(field, outside_integer_range(lo, hi))),
        }
    }
}

impl<'de, T: TryFrom<u64>> Deserialize<'de> for Integer<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_u64(IntegerVisitor(PhantomData))
    }
}

/// Reads an [`Integer`]: what serde's visitor of `T` accepts and refuses,
/// with its words, but a float beyond the exact integers is `OutOfRange`.
struct IntegerVisitor<T>(PhantomData<T>);

impl<T: TryFrom<u64>> Visitor<'_> for IntegerVisitor<T> {
    type Value = Integer<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(std::any::type_name::<T>())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        T::try_from(v)
            .map(Integer::Value)
            .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::invalid_value(Unexpected::Signed(v), &self)),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        if beyond_exact_integers(v) {
            Ok(Integer::OutOfRange)
        } else {
            Err(E::invalid_type(Unexpected::Float(v), &self))
        }
    }
}

/// A checked request: the queries (row-major, `dim` each), the parameters
/// and the deadline.
#[derive(Debug, Clone)]
pub struct Checked {
    /// `n · dim` values.
    pub queries: Vec<f32>,
    /// Whether the request was a batch (`vectors`): the answer is then
    /// `{"results": [...]}`.
    pub batch: bool,
    /// Parameters (`parallelism` is set per query when it starts).
    pub params: SearchParams,
    /// The request's deadline, from its arrival.
    pub deadline: Duration,
}

/// Parses a request body, naming the field at fault.
///
/// # Errors
/// [`ApiError`] (400) for a body that is not the request's JSON.
pub fn parse(body: &[u8]) -> Result<SearchRequest, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        // `?`: serde_path_to_error's segment for a place it could not name
        // (the text ended inside an object, say): the body as a whole.
        if path.chars().all(|c| c == '.' || c == '?') {
            ApiError::field("body", format!("not a search request: {inner}"))
        } else {
            ApiError::field(path, inner.to_string())
        }
    })
}

impl SearchRequest {
    /// Checks every field against the index dimension `dim` and `bounds`,
    /// filling defaults from `base`.
    ///
    /// # Errors
    /// [`ApiError`] (400) naming the first bad field.
    ///
    /// # Complexity
    /// `O(n · dim)` for `n` vectors.
    pub fn validate(
        self,
        dim: usize,
        base: &SearchParams,
        bounds: &RequestBounds,
    ) -> Result<Checked, ApiError> {
        let (rows, batch) = match (self.vector, self.vectors) {
            (Some(v), None) => (vec![v], false),
            (None, Some(vs)) => (vs, true),
            (Some(_), Some(_)) => {
                return Err(ApiError::field(
                    "vector",
                    "give vector or vectors, not both",
                ));
            }
            (None, None) => {
                return Err(ApiError::field("vector", "missing (or give vectors)"));
            }
        };
        if batch && rows.is_empty() {
            return Err(ApiError::field("vectors", "is empty"));
        }
        if rows.len() > bounds.max_batch {
            return Err(ApiError::field(
                "vectors",
                format!(
                    "{} vectors, more than the {} a request may carry",
                    rows.len(),
                    bounds.max_batch
                ),
            ));
        }
        let mut queries = Vec::with_capacity(rows.len() * dim);
        for (r, row) in rows.iter().enumerate() {
            let name = || {
                if batch {
                    format!("vectors[{r}]")
                } else {
                    "vector".to_string()
                }
            };
            if row.len() != dim {
                return Err(ApiError::field(
                    name(),
                    format!("has {} values, the index has dimension {dim}", row.len()),
                ));
            }
            for (i, &x) in row.iter().enumerate() {
                if !(x.is_finite() && x.abs() <= f64::from(f32::MAX)) {
                    return Err(ApiError::field(
                        format!("{}[{i}]", name()),
                        format!("{x:e} is not a finite f32"),
                    ));
                }
                queries.push(x as f32);
            }
        }
        let mut params = base.clone();
        if let Some(k) = self.k {
            let k = k.within("k", 1, bounds.max_k as u64)?;
            if !(1..=bounds.max_k).contains(&k) {
                return Err(ApiError::field(
                    "k",
                    format!("{k} is not in 1..={}", bounds.max_k),
                ));
            }
            params.k = k;
        }
        if let Some(n) = self.nprobe {
            let n = n.within("nprobe", 1, bounds.max_nprobe as u64)?;
            if !(1..=bounds.max_nprobe).contains(&n) {
                return Err(ApiError::field(
                    "nprobe",
                    format!("{n} is not in 1..={}", bounds.max_nprobe),
                ));
            }
            params.nprobe = n;
        }
        if let Some(n) = self.k_max {
            let n = n.within("k_max", 1, MAX_K_MAX)?;
            if !(1..=MAX_K_MAX as usize).contains(&n) {
                return Err(ApiError::field(
                    "k_max",
                    format!("{n} is not in 1..={MAX_K_MAX}"),
                ));
            }
            params.plan.k_max = Some(n);
        }
        if let Some(m) = &self.method {
            params.plan.method = crate::vocabulary::parse_method(m)
                .map_err(|e| ApiError::field("method", crate::error::bound(&e, 300)))?;
        }
        params.explain = self.explain.unwrap_or(false);
        let deadline_ms = self
            .deadline_ms
            .map(|ms| {
                let max = u64::try_from(bounds.max_deadline.as_millis()).unwrap_or(u64::MAX);
                ms.within("deadline_ms", 1, max)
            })
            .transpose()?;
        let deadline = match deadline_ms {
            None => bounds.default_deadline,
            Some(0) => return Err(ApiError::field("deadline_ms", "must be >= 1")),
            Some(ms) if Duration::from_millis(ms) > bounds.max_deadline => {
                return Err(ApiError::field(
                    "deadline_ms",
                    format!(
                        "{ms} is more than the server's maximum of {}",
                        bounds.max_deadline.as_millis()
                    ),
                ));
            }
            Some(ms) => Duration::from_millis(ms),
        };
        Ok(Checked {
            queries,
            batch,
            params,
            deadline,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(body: &str) -> Result<Checked, ApiError> {
        parse(body.as_bytes())?.validate(3, &SearchParams::default(), &RequestBounds::default())
    }

    fn field_of(body: &str) -> String {
        let e = check(body).unwrap_err();
        assert_eq!(e.status, 400, "{e:?}");
        assert!(!e.message.contains('\n'), "{e:?}");
        e.field.unwrap()
    }

    #[test]
    fn every_bad_field_is_named() {
        assert_eq!(field_of(r#"{"vector": [1, 2]}"#), "vector");
        assert_eq!(field_of(r#"{"vector": [1, 2, 1e39]}"#), "vector[2]");
        assert_eq!(field_of(r#"{"vectors": [[1, 2, 3], [1]]}"#), "vectors[1]");
        assert_eq!(field_of(r#"{"vectors": []}"#), "vectors");
        assert_eq!(field_of(r#"{"vector": [1, 2, 3], "k": 0}"#), "k");
        assert_eq!(field_of(r#"{"vector": [1, 2, 3], "k": 1000000}"#), "k");
        assert_eq!(field_of(r#"{"vector": [1, 2, 3], "nprobe": 0}"#), "nprobe");
        assert_eq!(field_of(r#"{"vector": [1, 2, 3], "k": "ten"}"#), "k");
        assert_eq!(field_of(r#"{"vector": [1, 2, 3], "k_max": 0}"#), "k_max");
        assert_eq!(
            field_of(r#"{"vector": [1, 2, 3], "k_max": 1048577}"#),
            "k_max"
        );
        assert_eq!(
            field_of(r#"{"vector": [1, 2, 3], "method": "fast"}"#),
            "method"
        );
        assert_eq!(
            field_of(r#"{"vector": [1, 2, 3], "method": "coalesce:1:0"}"#),
            "method"
        );
        assert_eq!(field_of("{"), "body");
        assert_eq!(field_of(r#"{"vector": [1, 2"#), "vector");
        assert_eq!(
            field_of(r#"{"vector": [1, 2, 3], "deadline_ms": 0}"#),
            "deadline_ms"
        );
        assert_eq!(
            field_of(r#"{"vector": [1, 2, 3], "deadline_ms": 3600000}"#),
            "deadline_ms"
        );
        assert_eq!(field_of(r#"{"vector": [1, 2, "x"]}"#), "vector[2]");
        assert_eq!(field_of(r#"{"vector": [1, 2, 3], "colour": 1}"#), "colour");
        assert_eq!(field_of(r#"{}"#), "vector");
        assert_eq!(field_of(r#"not json"#), "body");
        let many = format!(r#"{{"vectors": [{}]}}"#, vec!["[1, 2, 3]"; 65].join(","));
        assert_eq!(field_of(&many), "vectors");
    }

    fn message_of(body: &str) -> String {
        check(body).unwrap_err().message
    }

    /// Fault probe 2: an integer beyond `u64` (or below `i64`), which
    /// serde_json reads as an `f64`, is refused naming the field and its
    /// range, not echoed as that float; every other bad integer keeps
    /// serde's words.
    #[test]
    fn an_integer_beyond_u64_names_the_field_and_its_range() {
        let v = r#""vector": [1, 2, 3]"#;
        let big = format!("1{}", "0".repeat(30));
        for (field, range) in [
            ("k", "1..=1000"),
            ("nprobe", "1..=4096"),
            ("k_max", "1..=1048576"),
            ("deadline_ms", "1..=60000"),
        ] {
            for n in [
                "18446744073709551616",
                "-9223372036854775809",
                "1e300",
                &big,
            ] {
                assert_eq!(
                    message_of(&format!("{{{v}, \"{field}\": {n}}}")),
                    format!(
                        "{field}: must be an integer in {range}, got a number outside that range"
                    ),
                    "{field}: {n}"
                );
            }
        }
        // What serde_json says of `n` as a `T`, without its position.
        fn serde_says<T: serde::de::DeserializeOwned + fmt::Debug>(n: &str) -> String {
            let e = serde_json::from_str::<T>(n).unwrap_err().to_string();
            e.split(" at line").next().unwrap().to_string()
        }
        for n in [
            "-1",
            "2.5",
            "1e19",
            "-9223372036854775808",
            "\"ten\"",
            "true",
            "[1]",
        ] {
            for (field, want) in [
                ("k", serde_says::<usize>(n)),
                ("nprobe", serde_says::<usize>(n)),
                ("k_max", serde_says::<usize>(n)),
                ("deadline_ms", serde_says::<u64>(n)),
            ] {
                let m = message_of(&format!("{{{v}, \"{field}\": {n}}}"));
                assert!(m.starts_with(&format!("{field}: {want} at line 1")), "{m}");
            }
        }
        assert_eq!(
            serde_says::<usize>("2.5"),
            "invalid type: floating point `2.5`, expected usize"
        );
        let c = check(&format!("{{{v}, \"k\": 7, \"deadline_ms\": null}}")).unwrap();
        assert_eq!(c.params.k, 7);
        assert_eq!(c.deadline, Duration::from_secs(10));
    }

    #[test]
    fn a_good_request_gets_the_defaults_it_does_not_set() {
        let c = check(r#"{"vectors": [[1, 2, 3], [4, 5, 6]], "k": 5, "method": "lance_rule"}"#)
            .unwrap();
        assert!(c.batch);
        assert_eq!(c.queries, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!((c.params.k, c.params.nprobe), (5, 16));
        assert_eq!(c.params.plan.method, planner_core::Method::LanceRule);
        assert_eq!(c.deadline, Duration::from_secs(10));
        assert_eq!(c.params.plan.k_max, None);
        let c = check(r#"{"vector": [1, 2, 3], "k_max": 4}"#).unwrap();
        assert_eq!(c.params.plan.k_max, Some(4));
        let c = check(r#"{"vector": [1, 2, 3], "deadline_ms": 250, "explain": true}"#).unwrap();
        assert!(!c.batch && c.params.explain);
        assert_eq!(c.deadline, Duration::from_millis(250));
    }
}
