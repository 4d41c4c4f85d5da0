import pytest

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
