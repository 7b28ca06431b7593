//! NumPy `.npy` files: a strict reader of the header dictionary and of
//! C-order 2-D arrays.
//!
//! The header is a Python dict literal, e.g.
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`. NumPy reads
//! it with `ast.literal_eval`, where a repeated key silently takes its last
//! value; a reader that took the first would see another array than NumPy
//! does, so a repeated key, a missing key or any other key is refused.

use std::path::Path;

use super::{FormatError, check_finite, malformed, read_all};

/// The three fields of a `.npy` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    /// The dtype string, e.g. `<f4`.
    pub descr: String,
    /// Whether the data are in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The array shape.
    pub shape: Vec<usize>,
}

/// A value of the header dictionary.
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

/// A cursor over the header text.
struct Cursor<'a> {
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    fn skip_ws(&mut self) {
        self.rest = self.rest.trim_start();
    }

    /// Consumes `c` (after whitespace), or fails naming what was expected.
    fn expect(&mut self, c: char, what: &str) -> Result<(), String> {
        self.skip_ws();
        self.rest = self
            .rest
            .strip_prefix(c)
            .ok_or_else(|| format!("header: expected {what}"))?;
        Ok(())
    }

    /// Consumes `c` if it comes next (after whitespace).
    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        match self.rest.strip_prefix(c) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    /// A quoted string (`'…'` or `"…"`, no escapes: NumPy writes none).
    fn string(&mut self) -> Result<&'a str, String> {
        self.skip_ws();
        let quote = match self.rest.chars().next() {
            Some(q @ ('\'' | '"')) => q,
            _ => return Err("header: expected a quoted string".into()),
        };
        let body = &self.rest[1..];
        let end = body
            .find(quote)
            .ok_or_else(|| "header: unterminated string".to_string())?;
        let s = &body[..end];
        if s.contains('\\') {
            return Err("header: escapes in strings are not supported".into());
        }
        self.rest = &body[end + 1..];
        Ok(s)
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_ws();
        if let Some(r) = self.rest.strip_prefix("True") {
            self.rest = r;
            return Ok(Value::Bool(true));
        }
        if let Some(r) = self.rest.strip_prefix("False") {
            self.rest = r;
            return Ok(Value::Bool(false));
        }
        if self.eat('(') {
            let mut dims = Vec::new();
            loop {
                if self.eat(')') {
                    return Ok(Value::Tuple(dims));
                }
                self.skip_ws();
                let digits = self.rest.len()
                    - self
                        .rest
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .len();
                if digits == 0 {
                    return Err(
                        "header: shape holds a value that is not a non-negative integer".into(),
                    );
                }
                let d = self.rest[..digits]
                    .parse::<usize>()
                    .map_err(|_| "header: a shape dimension overflows".to_string())?;
                self.rest = &self.rest[digits..];
                dims.push(d);
                if !self.eat(',') {
                    self.expect(')', "',' or ')' in shape")?;
                    return Ok(Value::Tuple(dims));
                }
            }
        }
        Ok(Value::Str(self.string()?.to_string()))
    }
}

impl Header {
    /// Parses the header dictionary, strictly: exactly the keys `descr`,
    /// `fortran_order` and `shape`, each once, with values of their types.
    ///
    /// # Errors
    /// A one-line reason (a repeated, missing or unknown key, a malformed
    /// literal).
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let mut c = Cursor { rest: text };
        c.expect('{', "'{' (the header is a dict literal)")?;
        let (mut descr, mut fortran, mut shape) = (None, None, None);
        loop {
            if c.eat('}') {
                break;
            }
            let key = c.string()?;
            if !matches!(key, "descr" | "fortran_order" | "shape") {
                return Err(format!(
                    "header: unknown key '{}' (expected descr, fortran_order, shape)",
                    crate::error::bound(key, 40)
                ));
            }
            c.expect(':', "':' after a key")?;
            let value = c.value()?;
            let repeated = match (key, value) {
                ("descr", Value::Str(s)) => descr.replace(s).is_some(),
                ("fortran_order", Value::Bool(b)) => fortran.replace(b).is_some(),
                ("shape", Value::Tuple(t)) => shape.replace(t).is_some(),
                _ => {
                    return Err(format!("header: '{key}' has a value of the wrong type"));
                }
            };
            if repeated {
                return Err(format!(
                    "header: key '{key}' appears twice (NumPy would read the last, this reader refuses)"
                ));
            }
            if !c.eat(',') {
                c.expect('}', "',' or '}' in the header")?;
                break;
            }
        }
        if !c.rest.trim().is_empty() {
            return Err("header: text after the dict".into());
        }
        Ok(Header {
            descr: descr.ok_or("header has no 'descr'")?,
            fortran_order: fortran.ok_or("header has no 'fortran_order'")?,
            shape: shape.ok_or("header has no 'shape'")?,
        })
    }
}

/// Reads a NumPy `.npy` file holding a C-order 2-D array of `<f4`, `<f8`,
/// `<i4`, `<i8` or `|u1`, converting to `f32`.
///
/// # Returns
/// The rows row-major and the number of columns.
///
/// # Errors
/// [`FormatError::Malformed`] for a bad magic or header, an unsupported dtype,
/// Fortran order, a shape that is not 2-D or has no rows, a size that does not
/// match the shape, or non-finite values.
pub fn read_npy(path: &Path) -> Result<(Vec<f32>, usize), FormatError> {
    let bytes = read_all(path)?;
    if bytes.len() < 10 || &bytes[0..6] != b"\x93NUMPY" {
        return Err(malformed(path, "not a .npy file (bad magic)"));
    }
    let major = bytes[6];
    let (hlen, hstart) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err(malformed(path, "truncated .npy header"));
            }
            (
                u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize,
                12,
            )
        }
        v => return Err(malformed(path, format!("unsupported .npy version {v}"))),
    };
    let header = bytes
        .get(hstart..hstart + hlen)
        .ok_or_else(|| malformed(path, "truncated .npy header"))?;
    let header = std::str::from_utf8(header).map_err(|_| malformed(path, "header is not text"))?;
    let h = Header::parse(header).map_err(|reason| malformed(path, reason))?;
    if h.fortran_order {
        return Err(malformed(path, "Fortran-order arrays are not supported"));
    }
    let descr = h.descr.as_str();
    let shape_text = h
        .shape
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let [rows, dim] = h.shape[..] else {
        return Err(malformed(
            path,
            format!("shape ({shape_text}) is not 2-D (rows, dim)"),
        ));
    };
    if rows == 0 || dim == 0 {
        return Err(malformed(path, format!("shape ({shape_text}) is empty")));
    }
    let data = &bytes[hstart + hlen..];
    let elem = match descr {
        "<f4" | "<i4" => 4,
        "<f8" | "<i8" => 8,
        "|u1" | "<u1" => 1,
        other => {
            return Err(malformed(
                path,
                format!("unsupported dtype '{other}' (expected <f4, <f8, <i4, <i8 or |u1)"),
            ));
        }
    };
    let expected = rows
        .checked_mul(dim)
        .and_then(|n| n.checked_mul(elem))
        .ok_or_else(|| malformed(path, "shape overflows"))?;
    if data.len() != expected {
        return Err(malformed(
            path,
            format!(
                "data holds {} bytes, shape ({rows}, {dim}) of {descr} needs {expected}",
                data.len()
            ),
        ));
    }
    let v: Vec<f32> = match descr {
        "<f4" => data
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4")))
            .collect(),
        "<i4" => data
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes(b.try_into().expect("4")) as f32)
            .collect(),
        "<f8" => data
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().expect("8")) as f32)
            .collect(),
        "<i8" => data
            .chunks_exact(8)
            .map(|b| i64::from_le_bytes(b.try_into().expect("8")) as f32)
            .collect(),
        _ => data.iter().map(|&b| f32::from(b)).collect(),
    };
    check_finite(path, &v, dim)?;
    Ok((v, dim))
}

#[cfg(test)]
mod tests {
    use super::super::read_vectors;
    use super::*;

    /// A scratch directory, removed when the guard drops (also on a failed test).
    fn scratch() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("warp-npy-")
            .tempdir()
            .unwrap()
    }

    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while !(10 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn npy_reads_f4_and_u1() {
        let dir = scratch();
        let p = dir.path().join("a.npy");
        let vals = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
        let data: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(&p, npy("<f4", "(3, 2)", &data)).unwrap();
        assert_eq!(read_npy(&p).unwrap(), (vals.to_vec(), 2));
        std::fs::write(&p, npy("|u1", "(2, 2)", &[1, 2, 3, 4])).unwrap();
        assert_eq!(read_vectors(&p).unwrap(), (vec![1.0, 2.0, 3.0, 4.0], 2));
        std::fs::write(&p, npy("<f4", "(6,)", &data)).unwrap();
        assert!(read_npy(&p).unwrap_err().to_string().contains("not 2-D"));
        std::fs::write(&p, npy("<c8", "(3, 2)", &data)).unwrap();
        assert!(
            read_npy(&p)
                .unwrap_err()
                .to_string()
                .contains("unsupported dtype")
        );
        std::fs::write(&p, npy("<f4", "(4, 2)", &data)).unwrap();
        assert!(read_npy(&p).unwrap_err().to_string().contains("needs 32"));
    }

    #[test]
    fn header_keys_are_read_strictly() {
        let ok =
            Header::parse("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }").unwrap();
        assert_eq!(ok.descr, "<f4");
        assert_eq!(ok.shape, vec![3, 4]);
        assert!(!ok.fortran_order);
        let one =
            Header::parse("{'shape': (7,), 'fortran_order': True, 'descr': \"|u1\"}").unwrap();
        assert_eq!((one.shape, one.fortran_order), (vec![7], true));
        for (text, want) in [
            (
                "{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)}",
                "appears twice",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'shape': (4, 3)}",
                "appears twice",
            ),
            ("{'descr': '<f4', 'fortran_order': False}", "no 'shape'"),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'x': 1}",
                "unknown key",
            ),
            (
                "{'descr': True, 'fortran_order': False, 'shape': (3, 4)}",
                "wrong type",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3, -4)}",
                "not a non-negative",
            ),
            ("'descr': '<f4'", "dict literal"),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4)} x",
                "after the dict",
            ),
        ] {
            let e = Header::parse(text).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn a_file_with_two_descr_keys_is_refused() {
        let dir = scratch();
        let p = dir.path().join("two-descr.npy");
        let data: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut header =
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), 'descr': '<i4', }"
                .to_string();
        while !(10 + header.len() + 1).is_multiple_of(64) {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&data);
        std::fs::write(&p, bytes).unwrap();
        let e = read_npy(&p).unwrap_err().to_string();
        assert!(e.contains("'descr' appears twice"), "{e}");
    }
}
