// Sorting and filtering of the site's tables; no library, no network.
// A table.data is sorted by clicking a header (numbers by the cell's data-value);
// a .filters block with data-table="ID" filters that table's rows by data-backend,
// data-grid, data-status and a substring of data-program.
(function () {
  "use strict";

  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    var raw = cell.getAttribute("data-value");
    if (raw !== null) {
      var number = parseFloat(raw);
      return isNaN(number) ? Number.NEGATIVE_INFINITY : number;
    }
    return cell.textContent.trim().toLowerCase();
  }

  function sortBy(table, index, header) {
    var body = table.tBodies[0];
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      if (x < y) { return ascending ? -1 : 1; }
      if (x > y) { return ascending ? 1 : -1; }
      return 0;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.removeAttribute("aria-sort");
    });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  function applyFilters(block) {
    var table = document.getElementById(block.getAttribute("data-table"));
    if (!table) { return; }
    var wanted = {};
    Array.prototype.forEach.call(block.querySelectorAll("[data-filter]"), function (input) {
      wanted[input.getAttribute("data-filter")] = input.value.trim().toLowerCase();
    });
    var shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var visible = Object.keys(wanted).every(function (key) {
        var value = wanted[key];
        if (!value) { return true; }
        var have = (row.getAttribute("data-" + key) || "").toLowerCase();
        return key === "program" ? have.indexOf(value) !== -1 : have === value;
      });
      row.hidden = !visible;
      if (visible) { shown += 1; }
    });
    var counter = block.querySelector(".shown");
    if (counter) { counter.textContent = shown + " shown"; }
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("table.data"), function (table) {
      if (!table.tHead) { return; }
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
        header.classList.add("sortable");
        header.setAttribute("tabindex", "0");
        header.addEventListener("click", function () { sortBy(table, index, header); });
        header.addEventListener("keydown", function (event) {
          if (event.key === "Enter") { sortBy(table, index, header); }
        });
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll(".filters"), function (block) {
      Array.prototype.forEach.call(block.querySelectorAll("[data-filter]"), function (input) {
        input.addEventListener("input", function () { applyFilters(block); });
        input.addEventListener("change", function () { applyFilters(block); });
      });
      applyFilters(block);
    });
  });
}());
