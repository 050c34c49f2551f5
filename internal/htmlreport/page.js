(function () {
  "use strict";
  var root = document.documentElement;
  var list = document.getElementById("programs");
  var controls = document.getElementById("controls");
  if (!list || !controls) { return; }
  var items = list.children;
  var n = items.length;
  var verdicts = new Array(n), names = new Array(n);
  var i;
  for (i = 0; i < n; i++) {
    verdicts[i] = items[i].getAttribute("data-verdict");
    names[i] = (items[i].getAttribute("data-name") + "\n" + items[i].getAttribute("data-file")).toLowerCase();
    items[i].hidden = true;
  }
  var boxes = controls.querySelectorAll("input[name=verdict]");
  var query = document.getElementById("q");
  var info = document.getElementById("pageinfo");
  var prev = document.getElementById("prev"), next = document.getElementById("next");
  var size = parseInt(list.getAttribute("data-page-size"), 10) || 50;
  var matched = [], shown = [], page = 0;

  function show() {
    var j;
    for (j = 0; j < shown.length; j++) { items[shown[j]].hidden = true; }
    shown = matched.slice(page * size, page * size + size);
    for (j = 0; j < shown.length; j++) { items[shown[j]].hidden = false; }
    var pages = Math.max(1, Math.ceil(matched.length / size));
    info.textContent = matched.length + " of " + n + " programs · page " + (page + 1) + " of " + pages;
    prev.disabled = page === 0;
    next.disabled = page + 1 >= pages;
    root.setAttribute("data-shown", String(shown.length));
    root.setAttribute("data-matched", String(matched.length));
  }
  function filter() {
    var want = {}, j, q = query.value.toLowerCase();
    for (j = 0; j < boxes.length; j++) { want[boxes[j].value] = boxes[j].checked; }
    matched = [];
    for (j = 0; j < n; j++) {
      if (want[verdicts[j]] && (q === "" || names[j].indexOf(q) >= 0)) { matched.push(j); }
    }
    page = 0;
    show();
  }
  for (i = 0; i < boxes.length; i++) { boxes[i].addEventListener("change", filter); }
  query.addEventListener("input", filter);
  prev.addEventListener("click", function () { if (page > 0) { page--; show(); } });
  next.addEventListener("click", function () { if ((page + 1) * size < matched.length) { page++; show(); } });
  controls.hidden = false;
  filter();
  root.setAttribute("data-filter", "ready");
})();
