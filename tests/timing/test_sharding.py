import pytest
from tests.archived_results import restored

from iconbench.errors import IconbenchError
from iconbench.timing.sharding import parse_shard, select_shard


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_partition_the_items(count):
    items = [f"program_{i}[default]" for i in range(23)]
    shards = [select_shard(items, (i, count)) for i in range(1, count + 1)]
    flat = [x for shard in shards for x in shard]
    assert sorted(flat) == sorted(items)
    assert len(set(flat)) == len(flat)
    assert max(map(len, shards)) - min(map(len, shards)) <= 1


def test_shards_do_not_depend_on_input_order():
    items = ["c", "a", "b", "d"]
    assert select_shard(items, (1, 2)) == select_shard(list(reversed(items)), (1, 2))


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_bad_shards_are_user_errors(text):
    with pytest.raises(IconbenchError, match="bad shard"):
        parse_shard(text)


def test_shards_balanced_by_the_h100_ledgers_finish_together():
    """4 shards of the whole suite on both GPU backends, by the committed H100 ledgers."""
    import json

    from iconbench.timing.sharding import balance, ledger_cost

    work = restored("results/h100") / "work"  # the ledgers, from git history
    cases = sorted({json.loads(line)["case"] for line in (work / "compile.jsonl").open()})
    cost = ledger_cost(work, ["gtfn_gpu", "dace_gpu"])
    balanced = [sum(map(cost, group)) for group in balance(cases, cost, 4)]
    dealt = [sum(map(cost, select_shard(cases, (i, 4)))) for i in range(1, 5)]
    assert len(cases) == 192
    # longest first: no shard is longer than the mean plus the longest single case
    assert max(balanced) <= sum(balanced) / 4 + max(map(cost, cases))
    assert max(balanced) - min(balanced) < max(dealt) - min(dealt)
    shards = [select_shard(cases, (i, 4), cost=cost) for i in range(1, 5)]
    assert sorted(c for s in shards for c in s) == cases
