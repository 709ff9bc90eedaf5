// The operator console: reads the admin API with the token this page was opened with
// (?accessToken=) and redraws every few seconds. No build step, no dependencies.
(function () {
  const REFRESH_MS = 10_000;
  const token = new URLSearchParams(window.location.search).get('accessToken') || '';
  const $ = (selector) => document.querySelector(selector);

  async function api(method, path) {
    const response = await fetch(`/api${path}`, { method, headers: { 'X-Hub-Api-Token': token } });
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      const message = body && body.error && (body.error.message || body.error);
      const error = new Error(`${method} /api${path}: ${response.status} ${message || ''}`);
      error.status = response.status;
      throw error;
    }
    return body;
  }

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children)
      node.append(child instanceof Node ? child : document.createTextNode(String(child ?? '')));
    return node;
  }

  function fill(table, rows, emptyText) {
    const body = table.tBodies[0];
    body.replaceChildren(...rows);
    if (rows.length === 0) {
      body.append(
        el('tr', {}, el('td', { colspan: String(table.tHead.rows[0].cells.length), class: 'empty' }, emptyText)),
      );
    }
  }

  /** Bars per hour: succeeded attempts up from the middle line, failed ones down from it. */
  function chart(hourly) {
    const ns = 'http://www.w3.org/2000/svg';
    const width = 360;
    const height = 48;
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('class', 'chart');
    svg.setAttribute('width', String(width));
    svg.setAttribute('height', String(height));
    svg.setAttribute('role', 'img');
    const max = Math.max(1, ...hourly.map((bucket) => Math.max(bucket.succeeded, bucket.failed)));
    const slot = width / Math.max(1, hourly.length);
    const middle = height / 2;
    const line = document.createElementNS(ns, 'line');
    Object.entries({ x1: 0, x2: width, y1: middle, y2: middle }).forEach(([key, value]) =>
      line.setAttribute(key, String(value)),
    );
    svg.append(line);
    hourly.forEach((bucket, index) => {
      const title = document.createElementNS(ns, 'title');
      title.textContent = `${bucket.hour}: ${bucket.succeeded} ok, ${bucket.failed} failed`;
      for (const [kind, count, up] of [
        ['ok', bucket.succeeded, true],
        ['failed', bucket.failed, false],
      ]) {
        if (!count) continue;
        const barHeight = Math.max(1, (count / max) * (middle - 2));
        const rect = document.createElementNS(ns, 'rect');
        rect.setAttribute('class', kind);
        rect.setAttribute('x', String(index * slot + 1));
        rect.setAttribute('width', String(Math.max(1, slot - 2)));
        rect.setAttribute('y', String(up ? middle - barHeight : middle));
        rect.setAttribute('height', String(barHeight));
        rect.append(title.cloneNode(true));
        svg.append(rect);
      }
    });
    return svg;
  }

  function drawOverview(overview) {
    fill(
      $('#nodes'),
      overview.nodes.map((node) =>
        el(
          'tr',
          {},
          el('td', {}, node.id + (node.local ? ' (this gateway)' : '')),
          el('td', { class: node.available ? 'up' : 'down' }, node.available ? 'up' : 'down'),
          el('td', {}, node.hostname || ''),
          el('td', {}, node.services.join(', ')),
        ),
      ),
      'no nodes',
    );
    fill(
      $('#services'),
      overview.services.map((service) =>
        el(
          'tr',
          {},
          el('td', {}, service.name),
          el('td', { class: 'up' }, service.nodes.length),
          el('td', {}, service.nodes.join(', ')),
        ),
      ),
      'no services',
    );
    fill(
      $('#outbox'),
      overview.outbox.map((entry) =>
        el(
          'tr',
          {},
          el('td', {}, entry.service),
          el(
            'td',
            { class: entry.pending === null ? 'down' : entry.pending > 0 ? 'warn' : 'up' },
            entry.pending === null ? 'no answer' : entry.pending,
          ),
        ),
      ),
      'no service with an outbox is running',
    );
    const webhooks = overview.webhooks;
    $('#webhook-totals').textContent = webhooks
      ? `pending ${webhooks.totals.pending} · failing ${webhooks.totals.failing} · dead-lettered ${webhooks.totals.dead}`
      : 'The webhooks service is not running.';
    fill(
      $('#receivers'),
      (webhooks ? webhooks.receivers : []).map((receiver) =>
        el(
          'tr',
          { 'data-subscription': receiver.subscriptionId },
          el('td', {}, `#${receiver.subscriptionId} ${receiver.target || ''}`),
          el('td', { class: receiver.state === 'active' ? 'up' : 'warn' }, receiver.state),
          el('td', {}, receiver.pending),
          el('td', { class: receiver.failing > 0 ? 'warn' : '' }, receiver.failing),
          el('td', { class: receiver.dead > 0 ? 'down' : '' }, receiver.dead),
          el('td', {}, chart(receiver.hourly || [])),
        ),
      ),
      'no receivers',
    );
  }

  function bytes(count) {
    const units = ['B', 'kB', 'MB', 'GB', 'TB'];
    let value = count;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit += 1;
    }
    return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
  }

  function age(seconds) {
    if (seconds === null || seconds === undefined) return '';
    if (seconds >= 86_400) return `${Math.floor(seconds / 86_400)} d`;
    if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h`;
    if (seconds >= 60) return `${Math.floor(seconds / 60)} min`;
    return `${seconds} s`;
  }

  function drawStorage(storage) {
    fill(
      $('#storage'),
      storage.services.flatMap((service) =>
        service.tables.map((table) =>
          el(
            'tr',
            { 'data-table': table.table },
            el('td', {}, service.service),
            el(
              'td',
              {},
              table.partitions === undefined ? table.table : `${table.table} (${table.partitions} partitions)`,
            ),
            el('td', {}, (table.rowsEstimated ? '~' : '') + table.rows.toLocaleString('en')),
            el('td', {}, bytes(table.bytes)),
            el('td', {}, table.oldestRowAt ? `${table.oldestRowAt} (${age(table.oldestRowAgeSeconds)} old)` : ''),
          ),
        ),
      ),
      'no service with a database is running',
    );
    fill(
      $('#retention'),
      storage.services.flatMap((service) =>
        service.retention.rules.map((rule) =>
          el(
            'tr',
            { 'data-rule': `${service.service}: ${rule.rule}` },
            el('td', {}, service.service),
            el('td', {}, `${rule.rule} (${rule.table})`),
            el('td', {}, age(rule.keepSeconds)),
            el(
              'td',
              { class: service.retention.enabled ? '' : 'warn' },
              service.retention.enabled ? rule.lastRunAt || 'not yet' : 'retention is off',
            ),
            el('td', {}, rule.lastRemoved ?? ''),
            el('td', {}, rule.removedTotal ?? ''),
          ),
        ),
      ),
      'no retention rules',
    );
  }

  async function drawDeadLetters(webhooksRunning) {
    if (!webhooksRunning) return fill($('#dead-letters'), [], 'The webhooks service is not running.');
    const { data } = await api('GET', '/admin/webhooks/deliveries?state=dead&limit=50');
    fill(
      $('#dead-letters'),
      data.map((delivery) =>
        el(
          'tr',
          { 'data-delivery': delivery.id },
          el('td', {}, `#${delivery.id}`),
          el('td', {}, `#${delivery.subscriptionId}`),
          el('td', {}, delivery.eventType),
          el('td', {}, delivery.attempts),
          el('td', {}, delivery.lastError || ''),
          el(
            'td',
            {},
            el('button', { type: 'button', class: 'redeliver', onclick: () => redeliver(delivery.id) }, 'Redeliver'),
          ),
        ),
      ),
      'no dead letters',
    );
  }

  async function redeliver(id) {
    try {
      await api('POST', `/admin/webhooks/deliveries/${id}/redeliver`);
      await refresh();
    } catch (err) {
      showProblem(err);
    }
  }

  function showProblem(err) {
    $('#problem').hidden = !err;
    $('#problem').textContent = err ? err.message : '';
  }

  async function refresh() {
    try {
      const overview = await api('GET', `/admin/overview?hours=${$('#hours').value}`);
      drawOverview(overview);
      await drawDeadLetters(Boolean(overview.webhooks));
      drawStorage(await api('GET', '/admin/storage'));
      $('#updated').textContent = `updated ${new Date().toLocaleTimeString()}`;
      showProblem(null);
    } catch (err) {
      showProblem(err);
    }
  }

  $('#refresh').addEventListener('click', refresh);
  $('#hours').addEventListener('change', refresh);
  refresh();
  setInterval(refresh, REFRESH_MS);
})();
