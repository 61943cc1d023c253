// Back and forward between the entries htmx pushed (a filtered list, a search) are popstate events
// on the page, even after a reload: Chromium keeps them same-document. htmx answers them by
// loading the page again, but only once it is ready, after the deferred scripts have run. A
// popstate before that (a slow load, a quick Back) would change the address and leave the old
// page shown. This script runs first, in the head, not deferred: until htmx has taken popstate
// (window.onpopstate), an htmx entry reloads the page from the server.
addEventListener('popstate', (e) => {
  if (!window.onpopstate && e.state && e.state.htmx) location.reload();
});
