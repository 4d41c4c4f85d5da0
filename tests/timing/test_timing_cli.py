from iconbench.cli import build_parser, commands


def test_run_and_demo_are_commands_with_examples():
    found = commands()
    assert {"run", "demo"} <= set(found)
    for name in ("run", "demo"):
        assert found[name].examples
    args = build_parser().parse_args(["run", "--shard", "1/2", "--quick", "--", "--show-stderr"])
    assert args.shard == (1, 2)
    assert args.quick
    assert "--show-stderr" in args.asv_args


def test_shard_regex_selects_exactly_the_shard():
    import re

    from iconbench.cli.run import shard_bench_regex

    regex = shard_bench_regex(["a[x]", "b[default]"])
    assert re.search(regex, "programs.Programs.time_device('a[x]', 'gtfn_cpu', 'tiny')")
    assert re.search(regex, "programs.Programs.track_bandwidth('b[default]', 'embedded', 'tiny')")
    assert not re.search(regex, "programs.Programs.time_device('a[y]', 'gtfn_cpu', 'tiny')")
    assert not re.search(regex, "programs.Programs.time_device('aa[x]', 'gtfn_cpu', 'tiny')")
