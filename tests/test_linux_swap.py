"""Linux swap through the package: the shipped example, its figures and the console commands."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import zvmsim

from conftest import ROOT, invoke

EXAMPLE = ROOT / "scenarios" / "linux-swap" / "undersized-guests.toml"


@pytest.fixture(scope="module")
def swapping() -> zvmsim.Result:
    if not EXAMPLE.is_file():
        pytest.skip("the swap example is not in this checkout")
    return zvmsim.run(EXAMPLE)


def test_undersized_guests_swap(swapping: zvmsim.Result) -> None:
    s = swapping.summary
    assert s["guest_pgmajfault"] > 1000
    # Readahead (vm.page-cluster = 3) reads more pages than there are major faults.
    assert s["guest_pswpin"] > s["guest_pgmajfault"]
    assert s["guest_pswpout"] > 0
    assert s["guest_swap_used_pages"] > 0
    # z/VM has storage to spare: the waiting is Linux's own swap I/O.
    assert s["pages_dasd"] == 0
    assert s["wait_swap_in_ms_per_tx"] > s["wait_page_fault_ms_per_tx"]
    for g in s["guests"]:
        assert g["pgmajfault"] > 0 and g["swap_used_pages"] > 0


def test_swap_figures_per_interval(swapping: zvmsim.Result) -> None:
    iv = swapping.intervals
    for col in ("pgmajfault_per_s", "pswpin_per_s", "pswpout_per_s", "linux_swap_used_pages",
                "linux_anon_pages", "pgscan_kswapd_per_s", "pgscan_direct_per_s"):
        assert col in iv.columns, col
    assert iv["pgmajfault_per_s"].sum() > 0
    # The per-interval rates add up to the run's major faults.
    per_guest = iv.group_by("guest").agg(pl.col("pgmajfault_per_s").sum())
    secs = swapping.summary["measured_seconds"] / swapping.summary["intervals"]
    total = float(per_guest["pgmajfault_per_s"].sum()) * secs
    assert total == pytest.approx(swapping.summary["guest_pgmajfault"], rel=1e-6)


def test_console_shows_swap_as_linux_does(swapping: zvmsim.Result) -> None:
    by_cmd = {c["command"]: c["response"] for c in swapping.console}
    swaps = by_cmd["swapon -s"]
    assert swaps[0].split() == ["Filename", "Type", "Size", "Used", "Priority"]
    dev, kind, size, used, _prio = swaps[1].split()
    assert dev == "/dev/dasdc1" and kind == "partition"
    assert int(size) == 512 * 1024 and int(used) > 0
    assert by_cmd["sysctl vm.swappiness"] == ["vm.swappiness = 60"]
    free = by_cmd["free -m"]
    assert free[2].startswith("-/+ buffers/cache:") and free[3].startswith("Swap:")
    total, used, avail = (int(x) for x in free[3].split()[1:])
    assert total == 512 and used > 0 and abs(avail - (total - used)) <= 1  # free truncates each field


def test_swappiness_override_and_rejected_sysctl(runner, tmp_path: Path) -> None:
    if not EXAMPLE.is_file():
        pytest.skip("the swap example is not in this checkout")
    calm = zvmsim.run(EXAMPLE, overrides=["guests[0].linux.swappiness=0"]).summary
    base = zvmsim.run(EXAMPLE).summary
    assert calm["throughput_tx_per_s"] > 2 * base["throughput_tx_per_s"]
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.read_text().replace(
        'linux = "sysctl vm.swappiness"', 'linux = "sysctl -w vm.swappiness=250"'))
    r = invoke(runner, ["check", str(bad)])
    assert r.exit_code == 1
    err = r.stderr if r.stderr else r.output
    assert "console[2].linux" in err and "Invalid argument" in err
    assert "Traceback" not in err
