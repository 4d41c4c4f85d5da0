from iconbench.cli import build_parser, commands


def test_run_and_demo_are_commands_with_examples(tmp_path):
    found = commands()
    assert {"run", "demo"} <= set(found)
    for name in ("run", "demo"):
        assert found[name].examples
    args = build_parser().parse_args(["run", "--shard", "1/2", "--quick", "--out", str(tmp_path)])
    assert args.shard == (1, 2)
    assert args.quick
    assert args.out == tmp_path
