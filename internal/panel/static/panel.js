// The Prints page's batch form: "all on this page" ticks or clears every
// print checkbox of the form, and the count says how many are ticked; both
// follow the rows as they refresh (htmx keeps ticked boxes, hx-preserve).
(function () {
  "use strict";
  function boxes(form) {
    return document.querySelectorAll('input[type=checkbox][name=order_items][form="' + form.id + '"]');
  }
  function recount() {
    var form = document.getElementById("batch-form");
    var out = document.getElementById("picked");
    if (!form || !out) return;
    var all = boxes(form), ticked = 0;
    all.forEach(function (b) { if (b.checked) ticked++; });
    out.value = String(ticked);
    var pickAll = document.getElementById("pick-all");
    if (pickAll) {
      pickAll.checked = all.length > 0 && ticked === all.length;
      pickAll.indeterminate = ticked > 0 && ticked < all.length;
    }
  }
  document.addEventListener("change", function (e) {
    var t = e.target;
    if (t.id === "pick-all") {
      var form = document.getElementById("batch-form");
      if (form) boxes(form).forEach(function (b) { b.checked = t.checked; });
    }
    recount();
  });
  document.addEventListener("htmx:afterSettle", recount);
  document.addEventListener("DOMContentLoaded", recount);
})();
