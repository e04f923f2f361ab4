//! The full model: a whole scenario (by default the large-memory study's ten-guest z/VM 5.3
//! run) built and run, timed apart: set-up (arrays, warm start) and stepping. Events and page
//! references per second of stepping, and the process's peak memory growth per guest page,
//! so that a regression in speed or footprint shows.

use std::time::Instant;

use zvmsim_core::system::Simulation;

/// Peak resident set of this process so far (Linux: VmHWM), in bytes.
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: u64 = s
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Run `text` (with `overrides`) and measure it.
pub fn bench_model(
    text: &str,
    file: &str,
    overrides: &[String],
) -> Result<serde_json::Value, String> {
    let before = peak_rss();
    let t0 = Instant::now();
    let mut sim = Simulation::from_toml(text, file, None, overrides).map_err(|e| e.to_string())?;
    let setup = t0.elapsed().as_secs_f64();
    let refs0 = sim.page_references();
    let t1 = Instant::now();
    sim.run();
    let step = t1.elapsed().as_secs_f64().max(1e-9);
    let events = sim.events();
    let refs = sim.page_references() - refs0;
    let pages = sim.guest_pages();
    let peak = peak_rss();
    let grown = match (before, peak) {
        (Some(b), Some(p)) => Some(p.saturating_sub(b)),
        _ => None,
    };
    Ok(serde_json::json!({
        "model_scenario": file,
        "model_overrides": overrides,
        "model_simulated_seconds": sim.now_ns() as f64 / 1e9,
        "model_setup_seconds": setup,
        "model_step_seconds": step,
        "model_events": events,
        "model_events_per_second": events as f64 / step,
        "model_page_refs": refs,
        "model_page_refs_per_second": refs as f64 / step,
        "model_guest_pages": pages,
        "model_peak_rss_bytes": peak,
        "model_bytes_per_guest_page": grown.map(|g| g as f64 / pages.max(1) as f64),
    }))
}
