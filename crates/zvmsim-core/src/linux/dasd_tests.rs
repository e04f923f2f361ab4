//! Unit tests of the DASD driver (`dasd.rs`): alias choice, queues and counters.

use super::*;

/// Adds to `d` one base device (0.0.0200, dasda, 1000 blocks) and `aliases` aliases of it
/// (0.0.0300 on), dedicated on subchannel 0 in subchannel set `ssid`; returns the
/// driver, the base and the aliases.
pub(crate) fn base_with_aliases(
    mut d: DasdDriver,
    aliases: u32,
    ssid: u16,
) -> (DasdDriver, u32, Vec<u32>) {
    let path = DevPath::Dedicated { sub: 0 };
    let b = d.add(
        0x200,
        Some("dasda".into()),
        path,
        Some((0, NONE)),
        false,
        1000,
        ssid,
    );
    let a = (0..aliases)
        .map(|k| d.add(0x300 + k as u16, None, path, Some((0, NONE)), true, 0, ssid))
        .collect();
    (d, b, a)
}

fn driver(aliases: u32) -> (DasdDriver, u32, Vec<u32>) {
    base_with_aliases(DasdDriver::default(), aliases, 0xb900)
}

#[test]
fn alias_taken_only_while_it_has_fewer_requests_than_the_base() {
    let (mut d, b, a) = driver(2);
    // Idle base: count 0, alias count 0 is not fewer: the base takes it.
    // Every request takes the group's next alias in turn (kernel: group->next advances
    // on each call). Idle base: a0's 0 is not fewer than the base's 0: the base.
    let (_, s1) = d.submit(1, b, 0, 1, false, 0);
    assert_eq!(s1, Some(b));
    // Base has 1: a1 (0) is fewer.
    let (_, s2) = d.submit(1, b, 1, 1, false, 0);
    assert_eq!(s2, Some(a[1]));
    let (_, s3) = d.submit(1, b, 2, 1, false, 0);
    assert_eq!(s3, Some(a[0]));
    // a1 has 1, not fewer than the base's 1: the request queues on the base even though
    // nothing else would serve it sooner.
    let (r4, s4) = d.submit(1, b, 3, 1, false, 0);
    assert_eq!(s4, None);
    assert_eq!(d.req(r4).dev, b);
    assert_eq!(d.devs[b as usize].count, 2);
    // Now the base has 2: a0 (1) is fewer and takes a queued second request.
    let (r5, _) = d.submit(1, b, 4, 1, false, 0);
    assert_eq!(d.req(r5).dev, a[0]);
    d.check().unwrap();
    // s2, s3, r5 went to aliases; s1 and r4 stayed on the base.
    assert_eq!(d.to_alias, 3);
    assert_eq!(d.kept_on_base, 2);
}

#[test]
fn completion_starts_the_queue_head_and_counts_for_iostat() {
    let (mut d, b, _) = driver(0);
    let (r1, _) = d.submit(1, b, 0, 2, false, 0);
    let (r2, s) = d.submit(2, b, 8, 1, true, 0);
    assert_eq!(s, None);
    let (done, next) = d.complete(r1, 100);
    assert_eq!(done.task, 1);
    assert_eq!(next, Some(r2));
    d.complete(r2, 300);
    let st = d.devs[b as usize].block;
    assert_eq!(
        (st.reads, st.writes, st.read_sectors, st.write_sectors),
        (1, 1, 16, 8)
    );
    assert_eq!(st.busy_ns, 300);
    assert_eq!(st.queue_ns, 2 * 100 + 200);
    d.check().unwrap();
}
