//! The calibration plot: measured medians and p90 per size, and the fitted
//! curves, as SVG (plotters, SVG backend only).

use plotters::prelude::*;

use super::Calibration;
use super::report::human_bytes;
use crate::error::{Error, Result};

/// Points per fitted curve (log-spaced).
const CURVE_POINTS: usize = 200;

/// Draws `cal` as an SVG document: log-log axes (size in bytes, ms); for
/// every concurrency the median (filled) and p90 (hollow) per size; the
/// affine, convex and monotone fits of the fit concurrency as curves.
///
/// # Errors
/// [`Error::Input`] when plotters fails to lay out the chart.
pub fn plot_svg(cal: &Calibration) -> Result<String> {
    let fail = |e: String| Error::input(format!("plot: {e}"));
    let xmin = cal.stats.iter().map(|s| s.bytes).min().unwrap_or(1) as f64;
    let xmax = cal.stats.iter().map(|s| s.bytes).max().unwrap_or(2) as f64;
    let (xmin, xmax) = (xmin / 1.5, (xmax * 1.5).max(xmin * 2.0));
    let ys = cal
        .stats
        .iter()
        .flat_map(|s| [s.median_ms, s.p90_ms])
        .filter(|v| v.is_finite() && *v > 0.0);
    let ymin = ys.clone().fold(f64::INFINITY, f64::min);
    let ymax = ys.fold(0.0_f64, f64::max);
    let (ymin, ymax) = if ymin.is_finite() && ymax > 0.0 {
        (ymin / 1.3, (ymax * 1.3).max(ymin * 2.0))
    } else {
        (0.1, 1000.0)
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 640)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "range-GET latency; fits at concurrency {}",
                    cal.fit_concurrency
                ),
                ("sans-serif", 22),
            )
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d((xmin..xmax).log_scale(), (ymin..ymax).log_scale())
            .map_err(|e| fail(e.to_string()))?;
        chart
            .configure_mesh()
            .x_desc("request size")
            .y_desc("ms")
            .x_label_formatter(&|v| human_bytes(v.round() as u64))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(|e| fail(e.to_string()))?;
        let palette = [BLUE, GREEN, MAGENTA, CYAN, BLACK];
        for (i, pc) in cal.per_concurrency.iter().enumerate() {
            let color = palette[i % palette.len()];
            let of_c: Vec<_> = cal
                .stats
                .iter()
                .filter(|s| s.concurrency == pc.concurrency)
                .collect();
            chart
                .draw_series(
                    of_c.iter()
                        .map(|s| Circle::new((s.bytes as f64, s.median_ms), 4, color.filled())),
                )
                .map_err(|e| fail(e.to_string()))?
                .label(format!("median, c = {}", pc.concurrency))
                .legend(move |(x, y)| Circle::new((x, y), 4, color.filled()));
            chart
                .draw_series(
                    of_c.iter()
                        .map(|s| Circle::new((s.bytes as f64, s.p90_ms), 4, color.stroke_width(1))),
                )
                .map_err(|e| fail(e.to_string()))?
                .label(format!("p90, c = {}", pc.concurrency))
                .legend(move |(x, y)| Circle::new((x, y), 4, color.stroke_width(1)));
        }
        let base = &cal.per_concurrency[0];
        let curve_colors = [RED, RGBColor(230, 140, 0), RGBColor(120, 60, 160)];
        for (fit, color) in base.fits.iter().zip(curve_colors) {
            let pts: Vec<(f64, f64)> = (0..CURVE_POINTS)
                .map(|i| {
                    let x = xmin * (xmax / xmin).powf(i as f64 / (CURVE_POINTS - 1) as f64);
                    (x, fit.surrogate.eval(x as u64).max(ymin))
                })
                .collect();
            let mape = fit
                .loso_mape
                .map_or_else(|| "-".to_string(), |v| format!("{v:.2}%"));
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(|e| fail(e.to_string()))?
                .label(format!("{} (MAPE {mape})", fit.kind.name()))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| fail(e.to_string()))?;
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    Ok(svg)
}
