//! The paging volumes one by one (system/paging_view.rs): the rows add up to the system's
//! paging figures, and CP's volumes-in-turn allocation fills a smaller volume first.

mod common;

use common::with;
use zvmsim_core::monitor::rows::PagingVolumeRow;
use zvmsim_core::system::Simulation;

/// SMALL with four guests and its paging space as one 3390-3 and one 3390-9 sharing `slots`
/// by capacity (a quarter and three quarters).
fn mixed(slots: u64) -> Simulation {
    four_guests_paging(&format!(
        "volumes = [{{ model = \"3390-3\" }}, {{ model = \"3390-9\" }}]\nslots = {slots}"
    ))
}

/// SMALL with four guests and `paging` for its paging volumes' lines, run to its end.
fn four_guests_paging(paging: &str) -> Simulation {
    let text = with("count = 3", "count = 4").replacen(
        "volumes = [{ model = \"3390-3\", count = 2 }]",
        paging,
        1,
    );
    let mut sim = Simulation::from_toml(&text, "t.toml", None, &[]).expect("valid");
    sim.run();
    assert_eq!(sim.summary()["ended"], "completed");
    sim
}

/// The last interval's rows of the two volumes.
fn last(sim: &Simulation) -> (PagingVolumeRow, PagingVolumeRow) {
    let rows = sim.paging_volume_rows();
    let n = rows.len();
    (rows[n - 2].clone(), rows[n - 1].clone())
}

#[test]
fn volume_rows_add_up_to_the_system_rows() {
    let sim = mixed(120_000);
    let sys = sim.system_rows();
    let vols = sim.paging_volume_rows();
    assert_eq!(vols.len(), 2 * sys.len(), "one row per volume and interval");
    for s in sys {
        let v: Vec<_> = vols.iter().filter(|v| v.interval == s.interval).collect();
        let ids: Vec<_> = v
            .iter()
            .map(|v| (v.volid.as_str(), v.rdev.as_str(), v.model.as_str()))
            .collect();
        assert_eq!(
            ids,
            [("PAG001", "0300", "3390-3"), ("PAG002", "0301", "3390-9")]
        );
        assert_eq!(
            v.iter().map(|v| v.slots).collect::<Vec<_>>(),
            [30_000, 90_000]
        );
        let io: f64 = v.iter().map(|v| v.io_per_s).sum();
        assert!(io > 0.0);
        assert!(
            (io - s.paging_io_per_s).abs() <= 1e-9 * io,
            "{io} vs {}",
            s.paging_io_per_s
        );
        // The system's service and queue times are the I/O-weighted means of the volumes'.
        let per_io =
            |f: fn(&PagingVolumeRow) -> f64| v.iter().map(|v| f(v) * v.io_per_s).sum::<f64>() / io;
        assert!((per_io(|v| v.service_ms) - s.paging_service_ms).abs() < 1e-6);
        assert!((per_io(|v| v.queue_ms) - s.paging_wait_ms).abs() < 1e-6);
    }
    // Every page on DASD holds a slot (slots also hold kept copies of resident pages).
    let (a, b) = last(&sim);
    let on_dasd = sys.last().unwrap().pages_dasd;
    assert!(
        on_dasd > 0 && a.slots_used + b.slots_used >= on_dasd,
        "{on_dasd} {a:?} {b:?}"
    );
}

#[test]
fn the_smaller_volume_fills_first_and_the_larger_one_then_takes_the_paging() {
    // Room on both: CP takes them in turn, so they hold the same slots and share the I/O.
    let (a, b) = last(&mixed(240_000));
    assert!(a.used_pct < 95.0, "{a:?}");
    assert!(
        a.slots_used.abs_diff(b.slots_used) <= a.slots_used / 50,
        "{a:?} {b:?}"
    );
    assert!(
        b.io_per_s < 1.5 * a.io_per_s && a.io_per_s < 1.5 * b.io_per_s,
        "{a:?} {b:?}"
    );
    // The same pages on a quarter fewer slots: the 3390-3 is full, every new block goes to
    // the 3390-9, which saturates and queues while the 3390-3 serves only its own reads.
    let (a, b) = last(&mixed(120_000));
    assert!(a.used_pct > 98.0, "{a:?}");
    assert!(b.io_per_s > 2.5 * a.io_per_s, "{a:?} {b:?}");
    assert!(b.busy_pct > 90.0 && a.busy_pct < 60.0, "{a:?} {b:?}");
    assert!(b.queue_ms > 10.0 * a.queue_ms, "{a:?} {b:?}");
}

/// SMALL with four guests and its paging volumes behind a storage-server cache of `cache`.
fn cached(cache: &str) -> Simulation {
    four_guests_paging(&format!(
        "volumes = [{{ model = \"3390-3\", count = 2 }}]\ncache = \"{cache}\""
    ))
}

#[test]
fn page_ins_hit_the_storage_servers_cache_as_far_as_it_holds_what_cp_wrote() {
    // Without `paging.cache` there is no such figure.
    let plain = mixed(240_000);
    assert!(plain.summary().get("paging_read_hit_pct").is_none());
    assert!(plain
        .system_rows()
        .iter()
        .all(|r| r.paging_read_hit_pct.is_none()));
    // A cache larger than both volumes: only blocks the warm start put on DASD without I/O
    // miss, the first time they are read; every other was written (or read) since IPL and is
    // still there, and a hit takes the cache's service, not the disk's.
    let big = cached("8G");
    let hit = |s: &Simulation| s.summary()["paging_read_hit_pct"].as_f64().expect("figure");
    assert!(hit(&big) > 70.0, "{}", hit(&big));
    // One track of cache: a block read back finds its track replaced by the writes between.
    let tiny = cached("48K");
    assert!(hit(&tiny) < 5.0, "{}", hit(&tiny));
    let service = |s: &Simulation| s.summary()["paging_service_ms"].as_f64().unwrap();
    assert!(
        service(&big) < 0.5 * service(&tiny),
        "{} {}",
        service(&big),
        service(&tiny)
    );
}

/// The summed guests' DASD page faults and those that stopped a virtual CPU.
fn faults(sim: &Simulation) -> (u64, u64) {
    let s = sim.summary();
    let gs = s["guests"].as_array().expect("guests");
    let sum = |k: &str| gs.iter().map(|g| g[k].as_u64().unwrap()).sum::<u64>();
    (sum("page_faults_dasd"), sum("page_faults_vcpu_stopped"))
}

#[test]
fn a_channel_programs_page_stops_the_virtual_cpu_only_if_the_model_says_so() {
    let text = with("count = 3", "count = 4");
    let run = |set: &[&str]| {
        let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        let mut sim = Simulation::from_toml(&text, "t.toml", None, &set).expect("valid");
        sim.run();
        faults(&sim)
    };
    // Linux takes pages CP paged out while they were free for the reads' page-cache pages,
    // and references in kernel mode stop the virtual CPU (pfault is for problem state).
    let (all, stopped) = run(&[]);
    assert!(stopped > 0 && stopped <= all, "{stopped} of {all}");
    // When only the I/O waits for such a page, fewer faults stop a virtual CPU.
    let (all2, stopped2) = run(&["model.ccw_page_in_stops_vcpu=false"]);
    assert!(all2 > 0);
    assert!(
        (stopped2 as f64) < 0.9 * stopped as f64 * all2 as f64 / all as f64,
        "{stopped2} of {all2} against {stopped} of {all}"
    );
}
