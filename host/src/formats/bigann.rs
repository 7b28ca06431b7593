//! big-ann-benchmarks binary files: `.fbin` (`f32`), `.u8bin` (`u8`),
//! `.i8bin` (`i8`) and `.ibin` (`i32`).
//!
//! # Layout
//! A little-endian header `u32 count, u32 dim`, then `count × dim`
//! components row-major, nothing else: the file size must be exactly
//! `8 + count · dim · size_of(component)`. The header is checked against the
//! file's size *before* the data is read, so a wrong header costs no memory.
//!
//! big-ann-benchmarks' ground-truth files (`count, k`, then `count × k` `i32`
//! ids, then `count × k` `f32` distances) are accepted by
//! [`read_ids`](super::read_ids) under the `.ibin` extension: the ids are
//! returned and the distances skipped.
//!
//! # Converting ann-benchmarks HDF5
//! ann-benchmarks ships `.hdf5` files with datasets `train`, `test`,
//! `neighbors` and `distances`. No reader is built in (no pure-Rust HDF5
//! reader builds quickly enough for CI here); convert once with Python:
//!
//! ```text
//! python3 -c "import h5py,numpy as np,sys;f=h5py.File(sys.argv[1]);[(lambda a:open(n+ext,'wb').write(np.array(a.shape,'<u4').tobytes()+a.tobytes()))(np.ascontiguousarray(f[n][:],dt)) for n,dt,ext in [('train','<f4','.fbin'),('test','<f4','.fbin'),('neighbors','<i4','.ibin')]]" sift-128-euclidean.hdf5
//! warp build --input train.fbin --queries test.fbin --groundtruth neighbors.ibin …
//! ```
//!
//! (`pip install h5py numpy`; angular data sets should be normalized by the
//! user, as `warp` measures squared L2 distance.)

use std::io::Read;
use std::path::Path;

use super::{FormatError, check_finite, malformed};

/// A component type of the big-ann binary formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinKind {
    /// `.fbin`: `f32`.
    F32,
    /// `.u8bin`: `u8`.
    U8,
    /// `.i8bin`: `i8`.
    I8,
    /// `.ibin`: `i32`.
    I32,
}

impl BinKind {
    /// The kind of a file extension (`fbin`, `u8bin`, `i8bin`, `ibin`).
    pub fn from_extension(ext: &str) -> Option<Self> {
        Some(match ext {
            "fbin" => Self::F32,
            "u8bin" => Self::U8,
            "i8bin" => Self::I8,
            "ibin" => Self::I32,
            _ => return None,
        })
    }

    /// Bytes per component.
    pub fn size(self) -> usize {
        match self {
            Self::F32 | Self::I32 => 4,
            Self::U8 | Self::I8 => 1,
        }
    }
}

/// The header and the data bytes of a big-ann binary file whose size is
/// `8 + count · dim · size · copies` (`copies` = 1, or 2 for a ground-truth
/// file's ids + distances); returns `(count, dim, data)` with only the first
/// copy's bytes.
pub(super) fn read_raw(
    path: &Path,
    kind: BinKind,
    copies: &[u64],
) -> Result<(usize, usize, Vec<u8>), FormatError> {
    let io = |source| FormatError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let file_len = f.metadata().map_err(io)?.len();
    let mut header = [0u8; 8];
    if file_len < 8 {
        return Err(malformed(
            path,
            format!("{file_len} bytes is shorter than the 8-byte header (u32 count, u32 dim)"),
        ));
    }
    f.read_exact(&mut header).map_err(io)?;
    let count = u32::from_le_bytes(header[0..4].try_into().expect("4 bytes"));
    let dim = u32::from_le_bytes(header[4..8].try_into().expect("4 bytes"));
    if count == 0 || dim == 0 {
        return Err(malformed(
            path,
            format!("header says {count} vectors of dimension {dim}: no vector to read"),
        ));
    }
    // u32 · u32 · 4 · 2 < 2^67: compute in u128, no overflow.
    let data = u128::from(count) * u128::from(dim) * kind.size() as u128;
    let body = u128::from(file_len - 8);
    let Some(&c) = copies.iter().find(|&&c| data * u128::from(c) == body) else {
        return Err(malformed(
            path,
            format!(
                "header says {count} × {dim} components of {} bytes ({} data bytes), the file holds {body} after the header",
                kind.size(),
                data
            ),
        ));
    };
    let _ = c;
    let data = usize::try_from(data)
        .map_err(|_| malformed(path, format!("{data} data bytes do not fit in memory")))?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(data)
        .map_err(|_| malformed(path, format!("cannot allocate {data} bytes for the data")))?;
    f.take(data as u64).read_to_end(&mut buf).map_err(io)?;
    if buf.len() != data {
        return Err(malformed(path, "file shrank while being read"));
    }
    Ok((count as usize, dim as usize, buf))
}

/// Reads a `.fbin`, `.u8bin` or `.i8bin` file (or `.ibin`, converted) as
/// `f32` rows.
///
/// # Returns
/// The rows row-major and their dimension.
///
/// # Errors
/// [`FormatError::Io`] when the file cannot be read; [`FormatError::Malformed`]
/// when it is shorter than the header, the header says zero rows or
/// dimensions, the file size does not match the header, or a `.fbin` value is
/// not finite.
pub fn read_bin(path: &Path, kind: BinKind) -> Result<(Vec<f32>, usize), FormatError> {
    let (_, dim, data) = read_raw(path, kind, &[1])?;
    let v: Vec<f32> = match kind {
        BinKind::F32 => data
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4")))
            .collect(),
        BinKind::I32 => data
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes(b.try_into().expect("4")) as f32)
            .collect(),
        BinKind::U8 => data.iter().map(|&b| f32::from(b)).collect(),
        BinKind::I8 => data.iter().map(|&b| f32::from(b as i8)).collect(),
    };
    check_finite(path, &v, dim)?;
    Ok((v, dim))
}

/// Reads an `.ibin` file of `i32` rows (e.g. neighbour ids); a big-ann
/// ground-truth file (ids followed by as many `f32` distances) is accepted
/// and its ids returned.
///
/// # Errors
/// As [`read_bin`].
pub fn read_ibin(path: &Path) -> Result<(Vec<i32>, usize), FormatError> {
    let (_, dim, data) = read_raw(path, BinKind::I32, &[1, 2])?;
    Ok((
        data.chunks_exact(4)
            .map(|b| i32::from_le_bytes(b.try_into().expect("4")))
            .collect(),
        dim,
    ))
}

/// Encodes `count × dim` rows as a big-ann binary file's bytes (header then
/// data), each component written by `put`.
pub fn bin_bytes<T: Copy, const N: usize>(
    data: &[T],
    dim: usize,
    put: impl Fn(T) -> [u8; N],
) -> Vec<u8> {
    let count = data.len().checked_div(dim).unwrap_or(0);
    let mut out = Vec::with_capacity(8 + data.len() * N);
    out.extend_from_slice(&(count as u32).to_le_bytes());
    out.extend_from_slice(&(dim as u32).to_le_bytes());
    for &x in data {
        out.extend_from_slice(&put(x));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{read_ids, read_vectors};
    use super::*;

    /// A scratch directory, removed when the guard drops (also on a failed test).
    fn scratch() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("warp-bigann-")
            .tempdir()
            .unwrap()
    }

    #[test]
    fn every_kind_reads_rows() {
        let dir = scratch();
        let p = dir.path().join("a.fbin");
        let v = [1.0f32, -2.5, 3.0, 4.0, 5.0, 6.0];
        std::fs::write(&p, bin_bytes(&v, 3, f32::to_le_bytes)).unwrap();
        assert_eq!(read_vectors(&p).unwrap(), (v.to_vec(), 3));
        let p = dir.path().join("a.u8bin");
        std::fs::write(&p, bin_bytes(&[0u8, 255, 7, 8], 2, u8::to_le_bytes)).unwrap();
        assert_eq!(read_vectors(&p).unwrap(), (vec![0.0, 255.0, 7.0, 8.0], 2));
        let p = dir.path().join("a.i8bin");
        std::fs::write(&p, bin_bytes(&[-128i8, 127, -1, 0], 4, i8::to_le_bytes)).unwrap();
        assert_eq!(
            read_vectors(&p).unwrap(),
            (vec![-128.0, 127.0, -1.0, 0.0], 4)
        );
        let p = dir.path().join("a.ibin");
        std::fs::write(&p, bin_bytes(&[5i32, 6, 7, 8], 2, i32::to_le_bytes)).unwrap();
        assert_eq!(read_ids(&p).unwrap(), (vec![5, 6, 7, 8], 2));
        assert_eq!(read_vectors(&p).unwrap(), (vec![5.0, 6.0, 7.0, 8.0], 2));
    }

    #[test]
    fn groundtruth_with_distances_gives_the_ids() {
        let dir = scratch();
        let p = dir.path().join("gt.ibin");
        let mut raw = bin_bytes(&[1i32, 2, 3, 4], 2, i32::to_le_bytes);
        for d in [0.5f32, 0.6, 0.7, 0.8] {
            raw.extend_from_slice(&d.to_le_bytes());
        }
        std::fs::write(&p, raw).unwrap();
        assert_eq!(read_ids(&p).unwrap(), (vec![1, 2, 3, 4], 2));
        // As vectors, the distances are trailing garbage.
        assert!(read_vectors(&p).is_err());
    }

    #[test]
    fn header_is_checked_against_the_file_size() {
        let dir = scratch();
        let p = dir.path().join("bad.fbin");
        let one_line = |e: FormatError| {
            let s = e.to_string();
            assert!(!s.contains('\n'), "{s}");
            s
        };
        std::fs::write(&p, [1, 0, 0]).unwrap();
        assert!(one_line(read_vectors(&p).unwrap_err()).contains("shorter than the 8-byte header"));
        // Header claims 1000 × 128, data holds one float.
        let mut raw = Vec::new();
        raw.extend_from_slice(&1000u32.to_le_bytes());
        raw.extend_from_slice(&128u32.to_le_bytes());
        raw.extend_from_slice(&1f32.to_le_bytes());
        std::fs::write(&p, &raw).unwrap();
        let e = one_line(read_vectors(&p).unwrap_err());
        assert!(e.contains("1000 × 128") && e.contains("512000"), "{e}");
        // A huge header must not allocate: u32::MAX × u32::MAX.
        let mut raw = Vec::new();
        raw.extend_from_slice(&u32::MAX.to_le_bytes());
        raw.extend_from_slice(&u32::MAX.to_le_bytes());
        std::fs::write(&p, &raw).unwrap();
        assert!(one_line(read_vectors(&p).unwrap_err()).contains("the file holds 0"));
        let mut raw = vec![0u8; 8];
        raw[4] = 3;
        std::fs::write(&p, &raw).unwrap();
        assert!(one_line(read_vectors(&p).unwrap_err()).contains("no vector"));
        std::fs::write(&p, bin_bytes(&[f32::NAN, 1.0], 2, f32::to_le_bytes)).unwrap();
        assert!(one_line(read_vectors(&p).unwrap_err()).contains("not finite"));
        assert!(matches!(
            read_vectors(&dir.path().join("missing.u8bin")),
            Err(FormatError::Io { .. })
        ));
    }
}
