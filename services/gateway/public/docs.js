// The API explorer: Swagger UI on the document the gateway generates from the running services.
// A token passed to this page as ?accessToken= is filled in, so "Try it out" works at once.
(function () {
  const token = new URLSearchParams(window.location.search).get('accessToken');
  const ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayRequestDuration: true,
    onComplete() {
      if (token) ui.preauthorizeApiKey('hubApiToken', token);
    },
  });
  window.ui = ui;
})();
