//! SVG charts of a benchmark's rows ([plotters], SVG backend only).
//!
//! [`write_all`] draws, into one directory:
//! - `qps.svg` — QPS against query concurrency `Q`, one line per series
//!   (policy, and layout when there are several);
//! - `io.svg` — remote GETs per query and KiB per query, bars per series at
//!   each `Q`;
//! - `latency.svg` — p50 and p99 latency, bars per series at each `Q`;
//! - `cache.svg` — only for a cache sweep (two or more sizes): GETs/query,
//!   QPS, p95 and cache hit rate against the cache size, one column per `Q`;
//! - `recall.svg` — when recall is known: the recall–cost trade-off, recall@10
//!   against KiB per query, GETs per query and QPS, one line per series
//!   through its `nprobe` values (an `--nprobe` sweep), each point labelled
//!   with its `nprobe`, at the first `Q` and cache size;
//! - `rows.json` — the rows every chart was drawn from.
//!
//! The first three (and `cache.svg`) use the rows of the first `nprobe` of a
//! sweep, and the first three those of its first cache size. Every
//! chart carries a caption with its workload, machine and command
//! ([`PlotContext`]), so a picture found on its own says where it came from.
//!
//! [plotters]: https://docs.rs/plotters

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::row::BenchRow;
use crate::error::{Error, Result};

/// Where a chart's numbers came from, printed under it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotContext {
    /// The workload, e.g. `100k × 128 SIFT-like, nlist 1024, nprobe 10,
    /// simulated S3 (the project's simulator: 25 ms + 5 ms/MiB, 2% tail)`.
    pub workload: String,
    /// The machine ([`machine_description`] by default).
    pub machine: String,
    /// The command that produced the rows.
    pub command: String,
}

/// This machine as a caption: vCPUs, CPU model and the 1-minute load average
/// at the time of the call (from `/proc`; "unknown" parts elsewhere).
pub fn machine_description() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into());
    format!("{cpus} vCPU {model}, load average {load} (shared machine)")
}

/// The command line of this process as run (`warp bench …`), with
/// credentials removed from URLs, for captions.
pub fn command_line() -> String {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| crate::error::redact_url(&a))
        .collect();
    format!("warp {}", args.join(" "))
}

/// Okabe–Ito colours (distinguishable with colour-blindness), then greys.
const COLOURS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(140, 140, 140),
];

const WIDTH: u32 = 960;
const CAPTION_H: u32 = 70;
const FONT: &str = "sans-serif";

fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

/// Draws the series legend of `chart` at `position` in `font_px` type, on a
/// translucent white box: the one legend style of every chart here.
fn legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
    font_px: u32,
    path: &Path,
) -> Result<()>
where
    DB: DrawingBackend + 'a,
    CT: plotters::coord::CoordTranslate,
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(180, 180, 180))
        .label_font((FONT, font_px))
        .draw()
        .map_err(|e| draw_err(path, e))
}

fn draw_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io {
        path: path.display().to_string(),
        source: std::io::Error::other(format!("drawing the chart: {e}")),
    }
}

/// The rows' series (in order of first appearance), Q values (ascending) and
/// cache labels (in sweep order).
struct Axes {
    series: Vec<String>,
    qs: Vec<usize>,
    caches: Vec<String>,
    layouts: usize,
}

impl Axes {
    fn of(rows: &[BenchRow]) -> Self {
        let mut layouts: Vec<&str> = Vec::new();
        let mut qs: Vec<usize> = Vec::new();
        let mut caches: Vec<String> = Vec::new();
        for r in rows {
            if !layouts.contains(&r.layout.as_str()) {
                layouts.push(&r.layout);
            }
            if !qs.contains(&r.concurrency) {
                qs.push(r.concurrency);
            }
            if !caches.contains(&r.cache) {
                caches.push(r.cache.clone());
            }
        }
        qs.sort_unstable();
        let mut series: Vec<String> = Vec::new();
        for r in rows {
            let s = r.series(layouts.len());
            if !series.contains(&s) {
                series.push(s);
            }
        }
        Self {
            series,
            qs,
            caches,
            layouts: layouts.len(),
        }
    }

    fn find<'a>(
        &self,
        rows: &'a [BenchRow],
        s: &str,
        q: usize,
        cache: &str,
    ) -> Option<&'a BenchRow> {
        rows.iter()
            .find(|r| r.series(self.layouts) == s && r.concurrency == q && r.cache == cache)
    }
}

/// Draws every chart into `dir` (created if missing) and returns the files
/// written.
///
/// # Errors
/// [`Error::Io`] when the directory or a file cannot be written;
/// [`Error::Input`] when there are no rows.
pub fn write_all(dir: &Path, rows: &[BenchRow], ctx: &PlotContext) -> Result<Vec<PathBuf>> {
    if rows.is_empty() {
        return Err(Error::input("nothing to plot: no benchmark rows"));
    }
    std::fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let mut out = Vec::new();
    let all = rows;
    let first_nprobe = all[0].nprobe;
    let rows: Vec<BenchRow> = all
        .iter()
        .filter(|r| r.nprobe == first_nprobe)
        .cloned()
        .collect();
    let rows = &rows[..];
    let axes = Axes::of(rows);
    let first_cache = axes.caches[0].clone();
    let mut notes = Vec::new();
    if all.iter().any(|r| r.nprobe != first_nprobe) {
        notes.push(format!("nprobe {first_nprobe}"));
    }
    if axes.caches.len() > 1 {
        notes.push(format!("cache {first_cache}"));
    }
    let cache_note = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join(", "))
    };

    let path = dir.join("qps.svg");
    draw_lines(
        &path,
        ctx,
        &axes,
        &format!("Throughput vs query concurrency{cache_note}"),
        &[Metric::Qps],
        &axes
            .qs
            .iter()
            .map(|q| format!("Q = {q}"))
            .collect::<Vec<_>>(),
        |s, xi, m| {
            axes.find(rows, s, axes.qs[xi], &first_cache)
                .map(|r| m.of(r))
        },
    )?;
    out.push(path);

    for (file, title, metrics) in [
        (
            "io.svg",
            "Remote I/O per query",
            [Metric::Gets, Metric::KiB],
        ),
        ("latency.svg", "Query latency", [Metric::P50, Metric::P99]),
    ] {
        let path = dir.join(file);
        draw_bars(
            &path,
            ctx,
            &axes,
            &format!("{title}{cache_note}"),
            &metrics,
            |s, qi, m| {
                axes.find(rows, s, axes.qs[qi], &first_cache)
                    .map(|r| m.of(r))
            },
        )?;
        out.push(path);
    }

    if axes.caches.len() > 1 {
        let path = dir.join("cache.svg");
        draw_cache(&path, ctx, &axes, rows)?;
        out.push(path);
    }
    if all.iter().any(|r| r.recall_at_10.is_some()) {
        let path = dir.join("recall.svg");
        draw_recall(&path, ctx, all)?;
        out.push(path);
    }
    let path = dir.join("rows.json");
    let json = serde_json::to_vec_pretty(all).map_err(|e| draw_err(&path, e))?;
    std::fs::write(&path, json).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })?;
    out.push(path);
    Ok(out)
}

/// The recall–cost chart: recall@10 against KiB/query, GETs/query and QPS,
/// one line per series through its `nprobe` values (ascending), at the
/// first `Q` and cache size of the rows.
fn draw_recall(path: &Path, ctx: &PlotContext, rows: &[BenchRow]) -> Result<()> {
    let (q, cache) = (rows[0].concurrency, rows[0].cache.clone());
    let rows: Vec<&BenchRow> = rows
        .iter()
        .filter(|r| r.concurrency == q && r.cache == cache && r.recall_at_10.is_some())
        .collect();
    let mut layouts: Vec<&str> = Vec::new();
    for r in &rows {
        if !layouts.contains(&r.layout.as_str()) {
            layouts.push(&r.layout);
        }
    }
    let mut series: Vec<String> = Vec::new();
    for r in &rows {
        let s = r.series(layouts.len());
        if !series.contains(&s) {
            series.push(s);
        }
    }
    let points = |s: &str, m: Metric| -> Vec<(f64, f64, usize)> {
        let mut p: Vec<(f64, f64, usize)> = rows
            .iter()
            .filter(|r| r.series(layouts.len()) == s)
            .map(|r| (m.of(r), r.recall_at_10.unwrap_or(0.0), r.nprobe))
            .collect();
        p.sort_by_key(|&(_, _, n)| n);
        p
    };
    let lowest = rows
        .iter()
        .filter_map(|r| r.recall_at_10)
        .fold(1.0f64, f64::min);
    let y0 = ((lowest - 0.05).max(0.0) * 20.0).floor() / 20.0;
    let h = 480 + CAPTION_H;
    let root = SVGBackend::new(path, (WIDTH + 480, h)).into_drawing_area();
    let top = frame(
        &root,
        &format!("Recall–cost trade-off over nprobe (Q = {q}, cache {cache})"),
        ctx,
    )
    .map_err(|e| draw_err(path, e))?;
    let metrics = [Metric::KiB, Metric::Gets, Metric::Qps];
    let panels = top.split_evenly((1, metrics.len()));
    for (pi, (panel, &m)) in panels.iter().zip(&metrics).enumerate() {
        let xmax = y_max(series.iter().flat_map(|s| points(s, m)).map(|p| p.0));
        let mut chart = ChartBuilder::on(panel)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..xmax, y0..1.0f64)
            .map_err(|e| draw_err(path, e))?;
        chart
            .configure_mesh()
            .x_desc(m.label())
            .y_desc("recall@10")
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()
            .map_err(|e| draw_err(path, e))?;
        for (si, s) in series.iter().enumerate() {
            let c = colour(si);
            let pts = points(s, m);
            let xy: Vec<(f64, f64)> = pts.iter().map(|&(x, y, _)| (x, y)).collect();
            let drawn = chart
                .draw_series(LineSeries::new(xy.clone(), c.stroke_width(2)))
                .map_err(|e| draw_err(path, e))?;
            if pi == 0 {
                drawn.label(s.clone()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            }
            chart
                .draw_series(xy.iter().map(|&p| Circle::new(p, 4, c.filled())))
                .map_err(|e| draw_err(path, e))?;
            if si == 0 {
                chart
                    .draw_series(pts.iter().map(|&(x, y, n)| {
                        Text::new(format!("{n}"), (x, y), (FONT, 11).into_font())
                    }))
                    .map_err(|e| draw_err(path, e))?;
            }
        }
        if pi == 0 {
            legend(&mut chart, SeriesLabelPosition::LowerRight, 13, path)?;
        }
    }
    root.present().map_err(|e| draw_err(path, e))
}

/// A plotted quantity.
#[derive(Debug, Clone, Copy)]
enum Metric {
    Qps,
    Gets,
    KiB,
    P50,
    P95,
    P99,
    HitRate,
}

impl Metric {
    fn of(self, r: &BenchRow) -> f64 {
        match self {
            Self::Qps => r.qps,
            Self::Gets => r.gets_per_query,
            Self::KiB => r.bytes_per_query / 1024.0,
            Self::P50 => r.p50_ms,
            Self::P95 => r.p95_ms,
            Self::P99 => r.p99_ms,
            Self::HitRate => r.cache_hit_rate.unwrap_or(0.0) * 100.0,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Qps => "queries per second",
            Self::Gets => "remote GETs per query",
            Self::KiB => "KiB fetched per query",
            Self::P50 => "p50 latency, ms",
            Self::P95 => "p95 latency, ms",
            Self::P99 => "p99 latency, ms",
            Self::HitRate => "cache hit rate, % of probed lists",
        }
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Splits `root` into the chart area and the caption strip, drawing the
/// title and the caption.
fn frame<'a>(
    root: &Area<'a>,
    title: &str,
    ctx: &PlotContext,
) -> std::result::Result<Area<'a>, String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (_, h) = root.dim_in_pixel();
    let (top, caption) = root.split_vertically((h - CAPTION_H) as i32);
    let top = top
        .titled(title, (FONT, 22).into_font().style(FontStyle::Bold))
        .map_err(|e| e.to_string())?;
    let lines = [
        format!("Workload: {}", ctx.workload),
        format!("Machine: {}", ctx.machine),
        format!("Command: {}", ctx.command),
    ];
    for (i, l) in lines.iter().enumerate() {
        caption
            .draw(&Text::new(
                l.clone(),
                (10, 6 + 20 * i as i32),
                (FONT, 13).into_font().color(&RGBColor(60, 60, 60)),
            ))
            .map_err(|e| e.to_string())?;
    }
    Ok(top)
}

/// The x range of `n` categories: category `i` is centred on `i`.
fn categories(n: usize) -> std::ops::Range<f64> {
    -0.5f64..n as f64 - 0.5
}

fn label_at(labels: &[String], v: f64) -> String {
    let i = v.round();
    if (v - i).abs() < 1e-6 && i >= 0.0 {
        labels.get(i as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

fn y_max(values: impl Iterator<Item = f64>) -> f64 {
    let m = values.filter(|v| v.is_finite()).fold(0.0f64, f64::max);
    if m > 0.0 { m * 1.15 } else { 1.0 }
}

/// Line chart(s): one panel per metric, x = categories `xs`, one line (with
/// points, so a single category still shows) per series.
fn draw_lines(
    path: &Path,
    ctx: &PlotContext,
    axes: &Axes,
    title: &str,
    metrics: &[Metric],
    xs: &[String],
    value: impl Fn(&str, usize, Metric) -> Option<f64>,
) -> Result<()> {
    let h = 480 + CAPTION_H;
    let root = SVGBackend::new(path, (WIDTH, h)).into_drawing_area();
    let top = frame(&root, title, ctx).map_err(|e| draw_err(path, e))?;
    let panels = top.split_evenly((1, metrics.len()));
    for (panel, &m) in panels.iter().zip(metrics) {
        let ymax = y_max(
            axes.series
                .iter()
                .flat_map(|s| (0..xs.len()).filter_map(|x| value(s, x, m))),
        );
        let mut chart = ChartBuilder::on(panel)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(categories(xs.len()), 0f64..ymax)
            .map_err(|e| draw_err(path, e))?;
        chart
            .configure_mesh()
            .x_labels(xs.len())
            .x_label_formatter(&|v| label_at(xs, *v))
            .y_desc(m.label())
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 15))
            .disable_x_mesh()
            .draw()
            .map_err(|e| draw_err(path, e))?;
        for (si, s) in axes.series.iter().enumerate() {
            let c = colour(si);
            let pts: Vec<(f64, f64)> = (0..xs.len())
                .filter_map(|x| value(s, x, m).map(|v| (x as f64, v)))
                .collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(|e| draw_err(path, e))?
                .label(s.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))
                .map_err(|e| draw_err(path, e))?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft, 13, path)?;
    }
    root.present().map_err(|e| draw_err(path, e))
}

/// Grouped bar chart(s): one panel per metric, x = Q, one bar per series.
fn draw_bars(
    path: &Path,
    ctx: &PlotContext,
    axes: &Axes,
    title: &str,
    metrics: &[Metric],
    value: impl Fn(&str, usize, Metric) -> Option<f64>,
) -> Result<()> {
    let h = 480 + CAPTION_H;
    let root = SVGBackend::new(path, (WIDTH, h)).into_drawing_area();
    let top = frame(&root, title, ctx).map_err(|e| draw_err(path, e))?;
    let panels = top.split_evenly((1, metrics.len()));
    let xs: Vec<String> = axes.qs.iter().map(|q| format!("Q = {q}")).collect();
    let ns = axes.series.len().max(1) as f64;
    let width = 0.8 / ns;
    for (pi, (panel, &m)) in panels.iter().zip(metrics).enumerate() {
        let ymax = y_max(
            axes.series
                .iter()
                .flat_map(|s| (0..xs.len()).filter_map(|x| value(s, x, m))),
        );
        let mut chart = ChartBuilder::on(panel)
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(categories(xs.len()), 0f64..ymax)
            .map_err(|e| draw_err(path, e))?;
        chart
            .configure_mesh()
            .x_labels(xs.len())
            .x_label_formatter(&|v| label_at(&xs, *v))
            .y_desc(m.label())
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 15))
            .disable_x_mesh()
            .draw()
            .map_err(|e| draw_err(path, e))?;
        for (si, s) in axes.series.iter().enumerate() {
            let c = colour(si);
            let bars: Vec<Rectangle<(f64, f64)>> = (0..xs.len())
                .filter_map(|x| {
                    let v = value(s, x, m)?;
                    let left = x as f64 - 0.4 + si as f64 * width;
                    Some(Rectangle::new(
                        [(left, 0.0), (left + width * 0.9, v)],
                        c.filled(),
                    ))
                })
                .collect();
            let drawn = chart.draw_series(bars).map_err(|e| draw_err(path, e))?;
            if pi == 0 {
                drawn.label(s.clone()).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled())
                });
            }
        }
        if pi == 0 {
            legend(&mut chart, SeriesLabelPosition::UpperLeft, 13, path)?;
        }
    }
    root.present().map_err(|e| draw_err(path, e))
}

/// The cache sweep: rows = GETs/query, QPS, p95, hit rate; columns = Q;
/// x = cache size; one line per series.
fn draw_cache(path: &Path, ctx: &PlotContext, axes: &Axes, rows: &[BenchRow]) -> Result<()> {
    let metrics = [Metric::Gets, Metric::Qps, Metric::P95, Metric::HitRate];
    let h = 260 * metrics.len() as u32 + CAPTION_H + 30;
    let root =
        SVGBackend::new(path, (WIDTH.max(380 * axes.qs.len() as u32), h)).into_drawing_area();
    let top = frame(
        &root,
        "Payload cache sweep (moka: TinyLFU admission, LRU eviction)",
        ctx,
    )
    .map_err(|e| draw_err(path, e))?;
    let panels = top.split_evenly((metrics.len(), axes.qs.len()));
    let xs = &axes.caches;
    for (i, panel) in panels.iter().enumerate() {
        let (m, qi) = (metrics[i / axes.qs.len()], i % axes.qs.len());
        let q = axes.qs[qi];
        let value = |s: &str, x: usize| axes.find(rows, s, q, &xs[x]).map(|r| m.of(r));
        let ymax = y_max(
            axes.series
                .iter()
                .flat_map(|s| (0..xs.len()).filter_map(|x| value(s, x))),
        );
        let mut chart = ChartBuilder::on(panel)
            .margin(8)
            .caption(format!("Q = {q}"), (FONT, 15))
            .x_label_area_size(28)
            .y_label_area_size(58)
            .build_cartesian_2d(categories(xs.len()), 0f64..ymax)
            .map_err(|e| draw_err(path, e))?;
        chart
            .configure_mesh()
            .x_labels(xs.len())
            .x_label_formatter(&|v| label_at(xs, *v))
            .y_desc(m.label())
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 12))
            .disable_x_mesh()
            .draw()
            .map_err(|e| draw_err(path, e))?;
        for (si, s) in axes.series.iter().enumerate() {
            let c = colour(si);
            let pts: Vec<(f64, f64)> = (0..xs.len())
                .filter_map(|x| value(s, x).map(|v| (x as f64, v)))
                .collect();
            let drawn = chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(|e| draw_err(path, e))?;
            if i == 0 {
                drawn.label(s.clone()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            }
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
                .map_err(|e| draw_err(path, e))?;
        }
        if i == 0 {
            legend(&mut chart, SeriesLabelPosition::UpperRight, 11, path)?;
        }
    }
    root.present().map_err(|e| draw_err(path, e))
}
