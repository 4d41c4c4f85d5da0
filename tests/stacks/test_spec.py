import pytest

from iconbench.errors import IconbenchError
from iconbench.stacks.spec import ComponentRef, Stack, parse_ref


def test_parse_forms():
    assert parse_ref("gt4py=../gt4py@my-branch") == ComponentRef(
        "gt4py", repo="../gt4py", ref="my-branch"
    )
    assert parse_ref("icon4py==0.4.1") == ComponentRef("icon4py", version="0.4.1")
    assert parse_ref("dace") == ComponentRef("dace")
    assert (
        str(parse_ref("dace=https://github.com/GridTools/dace.git@main"))
        == "dace=https://github.com/GridTools/dace.git@main"
    )


def test_unnamed_components_default_to_the_lock():
    stack = Stack.parse(["gt4py=.@HEAD"])
    assert [r.component for r in stack.refs] == ["gt4py", "dace", "icon4py"]
    assert stack.get("dace") == ComponentRef("dace")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cupy==13", "unknown stack component 'cupy'"),
        ("gt4py=a@b@c", "cannot parse"),
        ("", "cannot parse"),
    ],
)
def test_bad_specs_name_the_problem(text, message):
    with pytest.raises(IconbenchError, match=message):
        parse_ref(text)


def test_component_given_twice():
    with pytest.raises(IconbenchError, match="'gt4py' is given twice"):
        Stack.parse(["gt4py==1.2.1", "gt4py=.@main"])
