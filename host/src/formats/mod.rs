//! Vector file formats: the TEXMEX/SIFT `.fvecs` / `.ivecs` / `.bvecs` files,
//! NumPy `.npy` arrays and big-ann-benchmarks `.fbin` / `.u8bin` / `.i8bin` /
//! `.ibin` files ([`bigann`], which also shows the one-line conversion of
//! ann-benchmarks HDF5 files); the text inputs of `warp reorder` (sizes,
//! query logs) are in [`reorder_input`].
//!
//! TEXMEX files store each vector as a little-endian `i32` dimension followed
//! by `dim` components (`f32`, `i32` or `u8`). Every vector of a file must have
//! the same dimension. `.npy` files must hold a C-order 2-D array of `<f4`,
//! `<f8`, `<i4`, `<i8` or `|u1`.
//!
//! Readers return the rows flattened row-major plus the dimension; a file with
//! no rows is an error (there is no dimension to report).

pub mod bigann;
mod npy;
pub mod reorder_input;

use std::fmt;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub use bigann::{BinKind, read_bin, read_ibin};
pub use npy::read_npy;

/// Why a vector file could not be read or written.
#[derive(Debug)]
#[non_exhaustive]
pub enum FormatError {
    /// The file could not be opened, read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file's contents do not follow the format.
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong, e.g. "vector 3 has dimension 64, expected 128".
        reason: String,
    },
    /// The file name has an extension no reader handles.
    UnknownExtension {
        /// The file.
        path: PathBuf,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            FormatError::Malformed { path, reason } => write!(f, "{}: {reason}", path.display()),
            FormatError::UnknownExtension { path } => write!(
                f,
                "{}: unknown vector file extension (expected .fvecs, .bvecs, .ivecs, .npy, .fbin, .u8bin, .i8bin or .ibin)",
                path.display()
            ),
        }
    }
}

/// `Display` includes the I/O cause, so no `source` is reported (the CLI
/// prints the chain on one line).
impl std::error::Error for FormatError {}

fn read_all(path: &Path) -> Result<Vec<u8>, FormatError> {
    std::fs::read(path).map_err(|source| FormatError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn malformed(path: &Path, reason: impl Into<String>) -> FormatError {
    FormatError::Malformed {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// Parses a TEXMEX vector file with `elem` bytes per component, calling
/// `push` with each component's bytes.
fn read_vecs<T>(
    path: &Path,
    elem: usize,
    convert: impl FnMut(&[u8]) -> T,
) -> Result<(Vec<T>, usize), FormatError> {
    parse_vecs(path, &read_all(path)?, elem, convert)
}

fn parse_vecs<T>(
    path: &Path,
    bytes: &[u8],
    elem: usize,
    mut convert: impl FnMut(&[u8]) -> T,
) -> Result<(Vec<T>, usize), FormatError> {
    if bytes.len() < 4 {
        return Err(malformed(path, "file holds no vector"));
    }
    let dim = i32::from_le_bytes(bytes[0..4].try_into().expect("4 bytes"));
    if dim <= 0 {
        return Err(malformed(
            path,
            format!("vector 0 has dimension {dim}, expected >= 1"),
        ));
    }
    let dim = dim as usize;
    let record = 4 + dim * elem;
    if !bytes.len().is_multiple_of(record) {
        return Err(malformed(
            path,
            format!(
                "file size {} is not a multiple of the record size {record} (4 + {dim} x {elem} bytes)",
                bytes.len()
            ),
        ));
    }
    let rows = bytes.len() / record;
    let mut out = Vec::with_capacity(rows * dim);
    for (i, rec) in bytes.chunks_exact(record).enumerate() {
        let d = i32::from_le_bytes(rec[0..4].try_into().expect("4 bytes"));
        if d as i64 != dim as i64 {
            return Err(malformed(
                path,
                format!("vector {i} has dimension {d}, expected {dim}"),
            ));
        }
        out.extend(rec[4..].chunks_exact(elem).map(&mut convert));
    }
    Ok((out, dim))
}

/// Reads a `.fvecs` file (TEXMEX: per vector an `i32` dimension then `f32`s).
///
/// # Returns
/// The vectors row-major and their dimension.
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read; [`FormatError::Malformed`]
/// when it is empty, truncated, has a non-positive dimension or mixes
/// dimensions, or holds a non-finite component.
pub fn read_fvecs(path: &Path) -> Result<(Vec<f32>, usize), FormatError> {
    let (v, dim) = read_vecs(path, 4, |b| {
        f32::from_le_bytes(b.try_into().expect("4 bytes"))
    })?;
    check_finite(path, &v, dim)?;
    Ok((v, dim))
}

/// Reads a `.ivecs` file (TEXMEX: per vector an `i32` dimension then `i32`s),
/// e.g. a ground-truth file of neighbour ids.
///
/// # Errors
/// As [`read_fvecs`].
pub fn read_ivecs(path: &Path) -> Result<(Vec<i32>, usize), FormatError> {
    read_vecs(path, 4, |b| {
        i32::from_le_bytes(b.try_into().expect("4 bytes"))
    })
}

/// Reads a `.bvecs` file (TEXMEX: per vector an `i32` dimension then `u8`s),
/// converting components to `f32`.
///
/// # Errors
/// As [`read_fvecs`].
pub fn read_bvecs(path: &Path) -> Result<(Vec<f32>, usize), FormatError> {
    read_vecs(path, 1, |b| f32::from(b[0]))
}

/// Parses `.fvecs` bytes held in memory; `name` labels errors.
///
/// # Errors
/// As [`read_fvecs`] (never [`FormatError::Io`]).
pub fn fvecs_from_bytes(name: &Path, bytes: &[u8]) -> Result<(Vec<f32>, usize), FormatError> {
    let (v, dim) = parse_vecs(name, bytes, 4, |b| {
        f32::from_le_bytes(b.try_into().expect("4 bytes"))
    })?;
    check_finite(name, &v, dim)?;
    Ok((v, dim))
}

/// Parses `.ivecs` bytes held in memory; `name` labels errors.
///
/// # Errors
/// As [`read_ivecs`] (never [`FormatError::Io`]).
pub fn ivecs_from_bytes(name: &Path, bytes: &[u8]) -> Result<(Vec<i32>, usize), FormatError> {
    parse_vecs(name, bytes, 4, |b| {
        i32::from_le_bytes(b.try_into().expect("4 bytes"))
    })
}

/// Encodes row-major `f32` rows of dimension `dim` (`dim >= 1`, dividing
/// `data.len()`) as `.fvecs` bytes.
pub fn fvecs_to_bytes(data: &[f32], dim: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() * 4 + data.len() / dim.max(1) * 4);
    for row in data.chunks_exact(dim.max(1)) {
        out.extend_from_slice(&(dim as i32).to_le_bytes());
        out.extend(row.iter().flat_map(|x| x.to_le_bytes()));
    }
    out
}

/// Encodes row-major `i32` rows of dimension `dim` as `.ivecs` bytes.
pub fn ivecs_to_bytes(data: &[i32], dim: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() * 4 + data.len() / dim.max(1) * 4);
    for row in data.chunks_exact(dim.max(1)) {
        out.extend_from_slice(&(dim as i32).to_le_bytes());
        out.extend(row.iter().flat_map(|x| x.to_le_bytes()));
    }
    out
}

fn check_finite(path: &Path, v: &[f32], dim: usize) -> Result<(), FormatError> {
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(malformed(
            path,
            format!(
                "vector {} component {} is not finite ({})",
                i / dim,
                i % dim,
                v[i]
            ),
        ));
    }
    Ok(())
}

/// Reads vectors by extension: `.fvecs`, `.bvecs`, `.ivecs` (converted to
/// `f32`), `.npy`, or big-ann `.fbin`, `.u8bin`, `.i8bin`, `.ibin`.
///
/// # Errors
/// [`FormatError::UnknownExtension`] for any other name; otherwise as the
/// reader.
pub fn read_vectors(path: &Path) -> Result<(Vec<f32>, usize), FormatError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("fvecs") => read_fvecs(path),
        Some("bvecs") => read_bvecs(path),
        Some("ivecs") => {
            read_ivecs(path).map(|(v, d)| (v.into_iter().map(|x| x as f32).collect(), d))
        }
        Some("npy") => read_npy(path),
        Some(ext) if BinKind::from_extension(ext).is_some() => {
            read_bin(path, BinKind::from_extension(ext).expect("checked"))
        }
        _ => Err(FormatError::UnknownExtension {
            path: path.to_path_buf(),
        }),
    }
}

/// Reads neighbour ids (ground truth) by extension: `.ivecs`, or big-ann
/// `.ibin` (plain, or a ground-truth file with distances after the ids).
///
/// # Returns
/// The ids row-major and the number per row (`k`).
///
/// # Errors
/// [`FormatError::UnknownExtension`] for any other name; otherwise as the
/// reader.
pub fn read_ids(path: &Path) -> Result<(Vec<i32>, usize), FormatError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("ivecs") => read_ivecs(path),
        Some("ibin") => read_ibin(path),
        _ => Err(FormatError::UnknownExtension {
            path: path.to_path_buf(),
        }),
    }
}

fn write_vecs<T: Copy>(
    path: &Path,
    data: &[T],
    dim: usize,
    to_bytes: impl Fn(T) -> [u8; 4],
) -> Result<(), FormatError> {
    if dim == 0 || dim > i32::MAX as usize || !data.len().is_multiple_of(dim) {
        return Err(malformed(
            path,
            format!(
                "cannot write {} values as rows of dimension {dim}",
                data.len()
            ),
        ));
    }
    let io = |source| FormatError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut w = BufWriter::new(std::fs::File::create(path).map_err(io)?);
    for row in data.chunks_exact(dim) {
        w.write_all(&(dim as i32).to_le_bytes()).map_err(io)?;
        for &x in row {
            w.write_all(&to_bytes(x)).map_err(io)?;
        }
    }
    w.flush().map_err(io)
}

/// Writes row-major `f32` vectors of dimension `dim` as `.fvecs`.
///
/// # Errors
/// [`FormatError::Malformed`] when `dim` is zero or does not divide
/// `data.len()`; [`FormatError::Io`] when writing fails.
pub fn write_fvecs(path: &Path, data: &[f32], dim: usize) -> Result<(), FormatError> {
    write_vecs(path, data, dim, f32::to_le_bytes)
}

/// Writes row-major `i32` vectors of dimension `dim` as `.ivecs`.
///
/// # Errors
/// As [`write_fvecs`].
pub fn write_ivecs(path: &Path, data: &[i32], dim: usize) -> Result<(), FormatError> {
    write_vecs(path, data, dim, i32::to_le_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory, removed when the guard drops (also on a failed test).
    fn scratch() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("warp-formats-")
            .tempdir()
            .unwrap()
    }

    #[test]
    fn fvecs_ivecs_roundtrip() {
        let dir = scratch();
        let p = dir.path().join("a.fvecs");
        let data: Vec<f32> = (0..12).map(|i| i as f32 * 0.5).collect();
        write_fvecs(&p, &data, 4).unwrap();
        assert_eq!(read_fvecs(&p).unwrap(), (data.clone(), 4));
        assert_eq!(read_vectors(&p).unwrap(), (data, 4));
        let q = dir.path().join("a.ivecs");
        let ids: Vec<i32> = (0..6).collect();
        write_ivecs(&q, &ids, 3).unwrap();
        assert_eq!(read_ivecs(&q).unwrap(), (ids, 3));
    }

    #[test]
    fn bvecs_reads_bytes() {
        let dir = scratch();
        let p = dir.path().join("b.bvecs");
        let mut raw = Vec::new();
        for r in 0..2u8 {
            raw.extend_from_slice(&3i32.to_le_bytes());
            raw.extend_from_slice(&[r, r + 1, 255]);
        }
        std::fs::write(&p, raw).unwrap();
        assert_eq!(
            read_bvecs(&p).unwrap(),
            (vec![0.0, 1.0, 255.0, 1.0, 2.0, 255.0], 3)
        );
    }

    #[test]
    fn fvecs_errors_name_the_problem() {
        let dir = scratch();
        let p = dir.path().join("bad.fvecs");
        std::fs::write(&p, [4, 0, 0, 0, 1, 2]).unwrap();
        let e = read_fvecs(&p).unwrap_err().to_string();
        assert!(e.contains("not a multiple of the record size"), "{e}");
        let mut raw = Vec::new();
        raw.extend_from_slice(&1i32.to_le_bytes());
        raw.extend_from_slice(&1f32.to_le_bytes());
        raw.extend_from_slice(&2i32.to_le_bytes());
        std::fs::write(&p, &raw).unwrap();
        let e = read_fvecs(&p).unwrap_err().to_string();
        assert!(e.contains("not a multiple"), "{e}");
        std::fs::write(&p, []).unwrap();
        assert!(
            read_fvecs(&p)
                .unwrap_err()
                .to_string()
                .contains("no vector")
        );
        let missing = dir.path().join("missing.fvecs");
        assert!(matches!(read_fvecs(&missing), Err(FormatError::Io { .. })));
        assert!(matches!(
            read_vectors(&dir.path().join("x.txt")),
            Err(FormatError::UnknownExtension { .. })
        ));
    }
}
