"""The browser the site's tests read pages with reports what a page did wrong, and only that."""

PAGE = """<!doctype html><html><head><title>t</title></head><body><main>ok</main>
<img src="missing.png">
<script>console.warn("careful"); console.error("broken", 42); console.log("fine");
setTimeout(() => { throw new Error("late"); }, 0);</script></body></html>"""


def test_a_page_that_errs_is_reported_and_a_clean_one_is_not(tmp_path, browser):
    bad, good = tmp_path / "bad.html", tmp_path / "good.html"
    bad.write_text(PAGE)
    good.write_text("<!doctype html><title>t</title><main>ok</main><main>two</main>")
    loaded = browser.open(
        bad.as_uri(), "new Promise(r => setTimeout(() => r(document.title), 100))"
    )
    found = {(p.kind, p.text) for p in loaded.problems}
    assert ("console.warning", "careful") in found
    assert ("console.error", "broken 42") in found
    assert any(kind == "exception" and "late" in text for kind, text in found)
    assert any(p.kind == "request.failed" and p.url.endswith("/missing.png")
               for p in loaded.problems)  # fmt: skip
    assert not any("fine" in text for _, text in found)
    assert loaded.value == "t"
    assert {bad.as_uri(), (tmp_path / "missing.png").as_uri()} <= set(loaded.requests)
    clean = browser.open(good.as_uri(), "document.querySelectorAll('main').length")
    assert (clean.problems, clean.value) == ((), 2)  # the last page's problems are gone
