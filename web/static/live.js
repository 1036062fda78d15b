// Reloads the page when the loop's store changes (server-sent events from
// /ui/live). The page works the same without it.
(function () {
  if (!window.EventSource) return;
  var es = new EventSource("/ui/live");
  es.addEventListener("change", function () {
    es.close();
    window.location.reload();
  });
})();
