//! JSON text to [`Value`], refusing duplicate object keys at every level.
//!
//! `serde_json::from_str::<Value>` keeps the last of duplicate keys silently,
//! so `{"k_max": 1, "k_max": 64}` would plan with 64. This reader builds the
//! same [`Value`] but stops at the first repeated key and reports its path
//! (`surrogate.affine.fixed_ms`, `intervals[2]`-style for arrays, the bare key
//! at the top level).

use core::cell::RefCell;
use core::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Parses `text`; `Err((Some(path), e))` when the key at `path` is repeated,
/// `Err((None, e))` for any other JSON error.
pub(super) fn parse(text: &str) -> Result<Value, (Option<String>, serde_json::Error)> {
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Node {
        at: &Seg::Root,
        duplicate: &duplicate,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    value.map_err(|e| (duplicate.into_inner(), e))
}

/// Where a value sits, built only when a duplicate is reported (no
/// allocation per value).
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

/// One value being read, at `at`.
struct Node<'p, 'd> {
    at: &'p Seg<'p>,
    duplicate: &'d RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
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
                duplicate: self.duplicate,
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
                *self.duplicate.borrow_mut() = Some(at.to_string());
                return Err(de::Error::custom("duplicate key"));
            }
            let v = map.next_value_seed(Node {
                at: &at,
                duplicate: self.duplicate,
            })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}
