"""What a reader sees, measured on the rendered page: the checks of the site's layout test.

One script, evaluated in the page, returns every layout fault as a line a person can act on:

* an element whose box passes the viewport's right edge (the page scrolls sideways), unless
  it sits in a box designed to scroll (``overflow-x: auto|scroll``);
* text cut by its box: a text-bearing block whose content is wider than the box
  (``scrollWidth`` against ``clientWidth``), boxes designed to scroll excepted;
* in a chart (``svg.chart``): a label (point and marker labels, legend entries, bar labels
  and values, the title) over another label, over a data point (``circle.point``,
  ``rect.bar``) or crossed by a reference line (parity, goal, OpenACC), or cut by the chart's
  own edge; a chart wider than the screen (read sideways, a phone sees labels and no bars).
  Axis tick labels are the axis, not labels over data.
"""

from __future__ import annotations

#: Evaluated in the page: a list of lines, one per fault (empty: the page holds).
SCRIPT = r"""
(() => {
  const faults = [];
  const vw = document.documentElement.clientWidth;
  const scrolls = (el) => {
    for (let a = el.parentElement; a; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  const name = (el) => {
    const cls = (el.getAttribute('class') || '').trim().split(/\s+/).filter(Boolean);
    const text = (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 50);
    return el.tagName.toLowerCase() + (cls.length ? '.' + cls.join('.') : '') +
      (text ? ` "${text}"` : '');
  };
  // 1. nothing wider than the viewport (outside a box designed to scroll)
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > vw + 1 && !scrolls(el)) wide.push([el, r]);
  }
  // report the outermost of each nest only
  for (const [el, r] of wide) {
    if (wide.some(([o]) => o !== el && o.contains(el))) continue;
    faults.push(`wider than the ${vw} px viewport: ${name(el)} ends at ${Math.round(r.right)} px`);
  }
  // 2. no text cut by its box
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg')) continue;
    const hasText = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!hasText) continue;
    const style = getComputedStyle(el);
    if (style.display === 'inline' || el.clientWidth === 0) continue;
    if (style.overflowX === 'auto' || style.overflowX === 'scroll') continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      faults.push(`text cut: ${name(el)} needs ${el.scrollWidth} px, has ${el.clientWidth}`);
    }
  }
  // 3. chart labels over labels, points, bars or reference lines; none cut by the chart
  const overlap = (a, b, by = 1) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > by &&
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > by;
  // a text's box is its line's: the glyphs' ink leaves ~2 px free above and below
  const ink = (r) => ({left: r.left, right: r.right, top: r.top + 2, bottom: r.bottom - 2});
  for (const svg of document.querySelectorAll('svg.chart, svg.chart-phone')) {
    if (!svg.getClientRects().length) continue;  // not shown at this width
    const chart = (svg.querySelector('title') || {}).textContent || svg.id;
    const box = svg.getBoundingClientRect();
    // a chart is read whole: one that scrolls sideways on a phone shows labels, no bars
    if (box.right > vw + 1) {
      faults.push(`chart "${chart}" is ${Math.round(box.width)} px wide, ` +
                  `ends at ${Math.round(box.right)} px of a ${vw} px screen`);
    }
    const labels = [...svg.querySelectorAll('text')].filter(t =>
      !t.hasAttribute('transform') && !t.classList.contains('tick') &&
      (t.textContent || '').trim()).map(t => [t, ink(t.getBoundingClientRect())]);
    const points = [...svg.querySelectorAll('circle.point, rect.bar')]
      .map(p => [p, p.getBoundingClientRect()]);
    const refs = [...svg.querySelectorAll('g.reference line')]
      .map(l => [l, l.getBoundingClientRect()]);
    const said = (t) => `"${t.firstChild ? t.firstChild.textContent.trim() : ''}"`;
    for (let i = 0; i < labels.length; i++) {
      const [t, r] = labels[i];
      if (r.right > box.right + 1 || r.left < box.left - 1) {
        faults.push(`chart "${chart}": label ${said(t)} cut by the chart's edge`);
      }
      for (let j = i + 1; j < labels.length; j++) {
        if (overlap(r, labels[j][1])) {
          faults.push(`chart "${chart}": label ${said(t)} over label ${said(labels[j][0])}`);
        }
      }
      for (const [p, pr] of points) {
        if (overlap(r, pr)) {
          const what = p.tagName.toLowerCase() === 'circle' ? 'data point' : 'bar';
          const of = (p.querySelector('title') || {}).textContent || '';
          faults.push(`chart "${chart}": label ${said(t)} over ${what} ${of.split(':')[0]}`);
        }
      }
      for (const [l, lr] of refs) {
        // a line's box is as thin as its stroke, 0 px along its axis: widen it to 1 px
        const hit = {left: lr.left - 0.5, right: lr.right + 0.5, top: lr.top - 0.5,
                     bottom: lr.bottom + 0.5};
        if (overlap(r, hit, 0)) {
          const of = (l.parentElement.querySelector('title') || {}).textContent || '';
          faults.push(`chart "${chart}": label ${said(t)} crossed by the line "${of}"`);
        }
      }
    }
  }
  return faults;
})()
"""
