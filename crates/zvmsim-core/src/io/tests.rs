use super::*;
use crate::config::io::{AliasRange, DeviceRange, LcuSpec};
use crate::config::scenario::DasdModel;

fn req(device: u32, origin: Origin) -> IoRequest {
    IoRequest {
        origin,
        device,
        pages: 1,
        write: false,
        queued_at: 0,
        block: 0,
        aliases: false,
        sub: 0,
        reach: 0,
    }
}

#[test]
fn one_channel_program_per_subchannel_fifo_and_routed_back() {
    let p = ModelParams {
        dasd_read_hit_ratio: 0.0,
        ..Default::default()
    };
    let mut io = IoSystem::new(&p, Stream::new(1, 1));
    let v = io.add_device(None);
    let w = io.add_device(None);
    let (t1, a) = io.submit(req(v, Origin::DbRead { task: 7 }), 0).unwrap();
    assert_eq!(t1, p.dasd_read_miss.ns());
    assert!(io.submit(req(v, Origin::SwapRead { task: 9 }), 0).is_none());
    // Another device is independent.
    assert!(io.submit(req(w, Origin::DbWrite), 0).is_some());
    assert_eq!(io.queued(v), 2);
    assert_eq!(io.in_flight(), 3);
    io.check().unwrap();
    let (done, next) = io.complete(a, t1);
    assert_eq!(done.origin, Origin::DbRead { task: 7 });
    let (t2, b) = next.unwrap();
    assert_eq!(t2, 2 * t1);
    let (done, next) = io.complete(b, t2);
    assert_eq!(done.origin, Origin::SwapRead { task: 9 });
    assert!(next.is_none());
    assert_eq!(io.stats(v).wait_ns, t1);
    assert_eq!(io.stats(v).ios, 2);
    assert_eq!(io.in_flight(), 1);
    io.check().unwrap();
}

/// Two LCUs: B900 with bases 9000-9001 and 4 HyperPAV aliases 90F0-90F3, and 9100 with one
/// base 9100 and 2 aliases.
fn two_lcus() -> IoSystem {
    let spec = IoSpec {
        fcp: None,
        channels: Default::default(),
        server: Default::default(),
        cost: Default::default(),
        paging: Vec::new(),
        lcus: vec![
            LcuSpec {
                ssid: "B900".into(),
                bases: vec![DeviceRange {
                    volsers: Vec::new(),
                    rdev: "9000".into(),
                    count: 2,
                    model: DasdModel::M3390_54,
                }],
                aliases: Some(AliasRange {
                    rdev: "90F0".into(),
                    count: 4,
                    kind: AliasKind::Hyperpav,
                    base: None,
                }),
            },
            LcuSpec {
                ssid: "B901".into(),
                bases: vec![DeviceRange {
                    volsers: Vec::new(),
                    rdev: "9100".into(),
                    count: 1,
                    model: DasdModel::M3390_9,
                }],
                aliases: Some(AliasRange {
                    rdev: "91F0".into(),
                    count: 2,
                    kind: AliasKind::Hyperpav,
                    base: None,
                }),
            },
        ],
    };
    let mut io = IoSystem::new(&ModelParams::default(), Stream::new(1, 1));
    io.configure(&spec, Stream::new(1, 3), Stream::new(1, 4))
        .unwrap();
    io
}

#[test]
fn cp_runs_minidisk_io_on_system_aliases_of_the_same_lcu_only() {
    let mut io = two_lcus();
    let base = io.by_rdev(0x9000).unwrap();
    let other = io.by_rdev(0x9100).unwrap();
    // Only two of LCU B900's aliases and one of B901's belong to SYSTEM.
    for rdev in [0x90F0, 0x90F1, 0x91F0] {
        let a = io.by_rdev(rdev).unwrap();
        io.set_owner(a, SubOwner::System);
    }
    let mut r = req(base, Origin::DbWrite);
    r.aliases = true;
    let mut started = Vec::new();
    for _ in 0..5 {
        if let Some((t, id)) = io.submit(r, 0) {
            started.push((t, id));
        }
    }
    // The base and B900's two SYSTEM aliases: three channel programs, two queued.
    assert_eq!(started.len(), 3);
    assert_eq!(io.queued(base), 3);
    for &(_, id) in &started {
        let s = io.requests.get(id).sub;
        assert_ne!(
            s,
            io.by_rdev(0x91F0).unwrap(),
            "an alias of another LCU ran it"
        );
    }
    io.check().unwrap();
    // A request that may not use aliases waits for the base.
    let r2 = req(other, Origin::DbWrite);
    assert!(io.submit(r2, 0).is_some());
    assert!(io.submit(r2, 0).is_none());
    // Drain: every completion starts the next queued request on the freed subchannel.
    let mut pending = started;
    let mut done = 0;
    while let Some((t, id)) = pending.pop() {
        let (_, next) = io.complete(id, t);
        done += 1;
        if let Some(n) = next {
            pending.push(n);
        }
        io.check().unwrap();
    }
    assert_eq!(done, 5);
    // Two started on aliases, and each alias completion took a queued request.
    assert_eq!(io.sub(base).via_alias, 4);
}

#[test]
fn a_busy_subchannel_is_caught_by_the_check() {
    let mut io = two_lcus();
    let base = io.by_rdev(0x9000).unwrap();
    let alias = io.by_rdev(0x91F0).unwrap();
    // Corrupt on purpose: an alias of LCU B901 running a request of a B900 base.
    let mut r = req(base, Origin::DbWrite);
    r.sub = alias;
    let id = io.requests.insert(r);
    io.subs[alias as usize].busy = Some(id);
    io.flow.submitted += 1;
    io.flow.pages_in += 1;
    io.typed.submitted[1].add(1);
    io.typed.started[1].add(1);
    let e = io.check().unwrap_err();
    assert!(e.contains("does not serve"), "{e}");
}

#[test]
fn staged_service_grows_with_transfer_size_and_reads_stream_from_prefetch() {
    let mut io = two_lcus();
    let base = io.by_rdev(0x9000).unwrap();
    let alias = io.by_rdev(0x90F0).unwrap();
    io.set_owner(base, SubOwner::Guest(0));
    io.set_owner(alias, SubOwner::Guest(0));
    let mut r = req(base, Origin::Dasd { guest: 0, req: 0 });
    r.pages = 1;
    r.block = 1000;
    let (t_small, a) = io.start_on(base, r, 0);
    io.complete(a, t_small);
    r.pages = 32;
    r.block = 1001;
    let (t_big, b) = io.start_on(base, r, t_small);
    io.complete(b, t_big);
    assert!(t_big - t_small > t_small / 2, "128K takes longer than 4K");
    // The stream continues: the next read is in the cache (prefetched), far below a miss.
    r.block = 1033;
    let (t3, c) = io.start_on(alias, r, t_big);
    io.complete(c, t3);
    let sv = io.server().unwrap();
    assert!(sv.stats.sequential >= 1);
    assert!(
        t3 - t_big < 1_000_000,
        "prefetched read took {}",
        t3 - t_big
    );
    assert_eq!(io.flow.pages_in, io.flow.pages_out);
    io.check().unwrap();
}

/// An ESS cluster's cache is shared by every adapter reading the volumes it owns: two reads
/// through two adapters at once pass one after the other when their volumes share a cluster,
/// side by side when they do not; writes do not use it (`nvs_rate` holds their path).
#[test]
fn reads_of_one_cluster_share_its_cache() {
    use crate::config::io::ServerSpec;
    use crate::config::units::Size;
    use server::Data;
    let spec = ServerSpec {
        host_adapters: 4,
        ha_rate: Some(Size(100 << 20)),
        cluster_rate: Some(Size(50 << 20)),
        ..ServerSpec::default()
    };
    let mut s = Staged::new(&spec, Stream::new(1, 9));
    let (a, b, c) = (
        s.add_volume(1 << 30),
        s.add_volume(1 << 30),
        s.add_volume(1 << 30),
    );
    s.own(a, 0);
    s.own(b, 2);
    s.own(c, 1);
    let read = Data {
        write: false,
        ckd: false,
    };
    let mib = 1 << 20;
    // 1 MiB at 50 MiB/s: 20 ms of the cluster's cache (the adapter's 10 ms side by side).
    let one = s.adapter_data(0, a, 0, mib, read);
    assert_eq!(one, 20_000_000);
    assert_eq!(
        s.adapter_data(1, b, 0, mib, read),
        2 * one,
        "same cluster: queued"
    );
    assert_eq!(s.adapter_data(2, c, 0, mib, read), one, "other cluster");
    let write = Data {
        write: true,
        ckd: false,
    };
    assert_eq!(
        s.adapter_data(3, b, 0, mib, write),
        10_000_000,
        "writes pass by"
    );
    assert_eq!(s.stats.cluster_ns, [40_000_000, 20_000_000]);
}

/// A host adapter waiting for its cluster's cache is held (it moves no other command's data
/// meanwhile) and counts that wait as busy, as it counts a write's wait for the NVS copy: two
/// reads of one volume arriving together at two adapters, the second waits for its cluster.
#[test]
fn an_adapter_waiting_for_its_cluster_is_held() {
    use crate::config::io::ServerSpec;
    use crate::config::units::Size;
    use server::Data;
    let spec = ServerSpec {
        host_adapters: 2,
        ha_rate: Some(Size(65_000_000)),
        cluster_rate: Some(Size(125_000_000)),
        ..ServerSpec::default()
    };
    let mut s = Staged::new(&spec, Stream::new(1, 9));
    let v = s.add_volume(1 << 30);
    let read = Data {
        write: false,
        ckd: false,
    };
    let bytes = 124 << 10;
    let first = s.adapter_data(0, v, 0, bytes, read);
    let second = s.adapter_data(1, v, 0, bytes, read);
    let cluster = bytes * 1_000_000_000 / 125_000_000;
    assert!(
        second + 1 >= cluster + first,
        "the second waits for the cluster: {first} {second}"
    );
    assert_eq!(s.busiest_adapter_ns(), second, "its wait counts as busy");
    assert!(s.stats.ha_wait_ns > 0);
}
