// The Parley operations console: a hash-routed page over /console/api. Everything the server
// sends is put into the page as text (never as HTML).
(function () {
  'use strict';

  const REFRESH_MS = Number(new URLSearchParams(location.search).get('refresh')) || 2000;
  const TOKEN_KEY = 'parley.console.token';
  const view = document.getElementById('view');
  const statusLine = document.getElementById('status');
  let timer = null;
  let charts = [];
  // Bumped whenever the view changes: a refresh that was in flight then stops instead of rescheduling.
  let generation = 0;

  // --- small DOM helpers ------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null) continue;
      if (key === 'class') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function table(headers, rows, attrs) {
    return el('table', attrs, el('thead', {}, el('tr', {}, headers.map(h => el('th', {}, h)))),
      el('tbody', {}, rows.length ? rows : [el('tr', {}, el('td', { colspan: headers.length, class: 'muted' }, 'none'))]));
  }

  function card(label, value, metric) {
    return el('div', { class: 'card' }, el('div', { class: 'value', 'data-metric': metric }, value),
      el('div', { class: 'label' }, label));
  }

  function time(iso) {
    return iso ? new Date(iso).toLocaleString() : '';
  }

  function seconds(value) {
    if (value === null || value === undefined) return '> 300 s';
    return value < 1 ? '≤ ' + Math.round(value * 1000) + ' ms' : '≤ ' + value + ' s';
  }

  function clearView() {
    generation++;
    if (timer) clearTimeout(timer);
    timer = null;
    charts.forEach(chart => chart.destroy());
    charts = [];
    view.replaceChildren();
  }

  // --- the API ----------------------------------------------------------------------------

  async function api(path, options) {
    const headers = Object.assign({ Accept: 'application/json' }, (options || {}).headers);
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = 'Bearer ' + token;
    const response = await fetch('/console/api/' + path, Object.assign({}, options, { headers }));
    const body = await response.json().catch(() => ({ error: 'unreadable answer' }));
    if (response.status === 401) {
      askForToken(body.error);
      throw new Error(body.error);
    }
    if (!response.ok) throw new Error(body.error || ('HTTP ' + response.status));
    return body;
  }

  function askForToken(reason) {
    clearView();
    const input = el('input', { type: 'password', size: 60, 'aria-label': 'access token' });
    view.append(el('h2', {}, 'Access token'), el('p', { class: 'muted' }, reason || ''),
      el('form', { onsubmit: event => { event.preventDefault(); sessionStorage.setItem(TOKEN_KEY, input.value); route(); } },
        input, ' ', el('button', { type: 'submit' }, 'Use token')));
  }

  function failed(error) {
    statusLine.textContent = 'error: ' + error.message;
    statusLine.className = 'error';
  }

  function fresh() {
    statusLine.textContent = 'updated ' + new Date().toLocaleTimeString();
    statusLine.className = 'muted';
  }

  // --- overview ---------------------------------------------------------------------------

  const rateHistory = { times: [], series: {} };
  let lastCounts = null;

  function rates(overview) {
    const now = new Date(overview.at).getTime() / 1000;
    const counts = Object.fromEntries(overview.requests.map(r => [r.method, r.count]));
    const perMethod = {};
    if (lastCounts) {
      const elapsed = Math.max(0.001, now - lastCounts.at);
      for (const [method, count] of Object.entries(counts)) {
        perMethod[method] = Math.max(0, (count - (lastCounts.counts[method] || 0)) / elapsed);
      }
    }
    lastCounts = { at: now, counts };
    if (Object.keys(perMethod).length) {
      rateHistory.times.push(now);
      for (const method of Object.keys(counts)) {
        const line = rateHistory.series[method] || (rateHistory.series[method] = rateHistory.times.slice(0, -1).map(() => 0));
        line.push(perMethod[method] || 0);
      }
      if (rateHistory.times.length > 90) {
        rateHistory.times.shift();
        Object.values(rateHistory.series).forEach(line => line.shift());
      }
    }
    return perMethod;
  }

  function rateChart(container) {
    const methods = Object.keys(rateHistory.series).sort();
    if (rateHistory.times.length < 2) {
      container.append(el('p', { class: 'muted' }, 'requests/s appear after two refreshes'));
      return;
    }
    const palette = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#dc2626', '#0891b2', '#4b5563'];
    const chart = new uPlot({
      width: Math.min(1100, view.clientWidth - 20), height: 200, title: 'Requests per second by method',
      series: [{}].concat(methods.map((method, i) => ({ label: method, stroke: palette[i % palette.length], width: 1.5 }))),
      axes: [{}, { label: 'req/s' }],
    }, [rateHistory.times].concat(methods.map(m => rateHistory.series[m])), container);
    charts.push(chart);
  }

  async function overview() {
    clearView();
    const root = el('div', { id: 'overview' });
    view.append(root);
    const mine = generation;
    async function refresh() {
      try {
        const data = await api('overview');
        if (mine !== generation) return;
        const perMethod = rates(data);
        charts.forEach(chart => chart.destroy());
        charts = [];
        const totalRequests = data.requests.reduce((sum, r) => sum + r.count, 0);
        const errors = Object.values(data.errorsByCode).reduce((sum, n) => sum + n, 0);
        const chart = el('div', { class: 'chart' });
        root.replaceChildren(
          el('div', { class: 'cards' },
            card('requests answered', totalRequests, 'requests-total'),
            card('calls waiting for input', data.callsWaiting, 'calls-waiting'),
            card('tasks working', data.openTasks.working || 0, 'tasks-working'),
            card('tasks waiting for input', data.openTasks.input_required || 0, 'tasks-input-required'),
            card('errors', errors, 'errors-total'),
            card('cluster members', data.cluster.members.length, 'members')),
          el('h2', {}, 'Requests'), chart,
          el('div', { class: 'grid' },
            el('div', {}, el('h2', {}, 'By method'), table(['method', 'answered', 'req/s'], data.requests.map(r =>
              el('tr', { 'data-method': r.method }, el('td', {}, r.method), el('td', { class: 'num', 'data-count': r.count }, r.count),
                el('td', { class: 'num' }, perMethod[r.method] === undefined ? '' : perMethod[r.method].toFixed(2)))))),
            el('div', {}, el('h2', {}, 'Latency per tool (tools/call)'), table(['tool', 'calls', 'p50', 'p99'], data.tools.map(t =>
              el('tr', { 'data-tool': t.tool }, el('td', {}, t.tool), el('td', { class: 'num', 'data-count': t.count }, t.count),
                el('td', { class: 'num', 'data-p50': t.p50Seconds }, seconds(t.p50Seconds)),
                el('td', { class: 'num', 'data-p99': t.p99Seconds }, seconds(t.p99Seconds)))))),
            el('div', {}, el('h2', {}, 'Tasks'), table(['status', 'open now', 'reached since start'],
              ['working', 'input_required', 'completed', 'failed', 'cancelled'].map(status =>
                el('tr', { 'data-task-status': status }, el('td', {}, status),
                  el('td', { class: 'num' }, data.openTasks[status] === undefined ? '' : data.openTasks[status]),
                  el('td', { class: 'num', 'data-reached': data.tasksReached[status] || 0 }, data.tasksReached[status] || 0))))),
            el('div', {}, el('h2', {}, 'Errors by code'), table(['code', 'answered'], Object.entries(data.errorsByCode).map(([code, n]) =>
              el('tr', { 'data-error-code': code }, el('td', {}, code), el('td', { class: 'num', 'data-count': n }, n)))),
              el('h2', {}, 'Refused at the HTTP edge'), table(['reason', 'requests'], Object.entries(data.refusedAtEdge).map(([reason, n]) =>
                el('tr', {}, el('td', {}, reason), el('td', { class: 'num' }, n))))),
            el('div', {}, el('h2', {}, 'Elicitation answers'), table(['action', 'answers'], Object.entries(data.elicitationAnswers).map(([action, n]) =>
              el('tr', { 'data-elicitation-action': action }, el('td', {}, action), el('td', { class: 'num', 'data-count': n }, n)))),
              el('h2', {}, 'Deprecated features in use'), table(['method', 'requests'], Object.entries(data.deprecatedRequests).map(([method, n]) =>
                el('tr', { 'data-deprecated-method': method }, el('td', {}, method), el('td', { class: 'num', 'data-count': n }, n)))))),
          el('h2', {}, 'Cluster'),
          table(['member', 'status', 'reachable', 'roles'], data.cluster.members.map(m =>
            el('tr', { 'data-member': m.address }, el('td', {}, m.address + (m.address === data.cluster.self ? ' (this node)' : '')
              + (m.address === data.cluster.leader ? ' (leader)' : '')), el('td', {}, m.status),
              el('td', {}, m.reachable ? 'yes' : 'NO'), el('td', {}, m.roles.join(', '))))),
          el('h2', {}, 'Shards'),
          table(['entity type', 'region (node)', 'shards', 'entities in memory'], data.cluster.sharding.flatMap(type =>
            type.regions.map(region => el('tr', { 'data-shards': type.entityType }, el('td', {}, type.entityType),
              el('td', {}, region.address), el('td', { class: 'num' }, region.shards), el('td', { class: 'num' }, region.entities)))
              .concat(type.failed.map(f => el('tr', {}, el('td', {}, type.entityType), el('td', { class: 'error', colspan: 3 }, f)))))));
        rateChart(chart);
        fresh();
      } catch (error) {
        if (mine !== generation) return;
        failed(error);
      }
      timer = setTimeout(refresh, REFRESH_MS);
    }
    await refresh();
  }

  // --- lists ------------------------------------------------------------------------------

  const STATUSES = {
    calls: ['open', 'waiting', 'running', 'completed', 'failed', 'became_task', 'any'],
    tasks: ['open', 'working', 'input_required', 'completed', 'failed', 'cancelled', 'any'],
  };

  async function list(kind, query) {
    clearView();
    const params = new URLSearchParams(query);
    const status = el('select', { name: 'status' }, STATUSES[kind].map(s => el('option', { value: s }, s)));
    status.value = params.get('status') || 'open';
    const tool = el('input', { name: 'tool', value: params.get('tool') || '', placeholder: 'any tool' });
    const minAge = el('input', { name: 'min-age', type: 'number', min: 0, value: params.get('min-age') || '', placeholder: 'seconds' });
    const form = el('form', { class: 'filters', onsubmit: event => {
      event.preventDefault();
      const next = new URLSearchParams();
      next.set('status', status.value);
      if (tool.value) next.set('tool', tool.value);
      if (minAge.value) next.set('min-age', minAge.value);
      location.hash = '#/' + kind + '?' + next;
    } }, el('label', {}, 'status', status), el('label', {}, 'tool', tool), el('label', {}, 'older than (s)', minAge),
      el('button', { type: 'submit' }, 'Filter'));
    const body = el('div', {});
    view.append(el('h2', {}, kind === 'calls' ? 'Calls (multi-round)' : 'Tasks'), form, body);
    try {
      const page = await api(kind + '?' + params);
      const single = kind === 'calls' ? 'call' : 'task';
      body.append(table(['id', 'tool', 'status', 'principal', 'started', 'age (s)', 'events', ''], page.items.map(item =>
        el('tr', { 'data-id': item.id, 'data-status': item.status },
          el('td', {}, el('a', { href: '#/' + single + '/' + encodeURIComponent(item.id) }, el('code', {}, item.id))),
          el('td', {}, item.name), el('td', {}, item.status), el('td', {}, el('code', {}, item.principal)),
          el('td', {}, time(item.startedAt)), el('td', { class: 'num' }, item.ageSeconds), el('td', { class: 'num' }, item.events),
          el('td', {}, kind === 'tasks' && (item.status === 'working' || item.status === 'input_required')
            ? cancelButton(item.id, () => list(kind, query)) : '')))));
      if (page.next) {
        const next = new URLSearchParams(params);
        next.set('cursor', page.next);
        body.append(el('p', {}, el('a', { href: '#/' + kind + '?' + next, id: 'next-page' }, 'Next page →')));
      }
      fresh();
    } catch (error) {
      failed(error);
    }
  }

  function cancelButton(id, after) {
    return el('button', { class: 'danger', 'data-cancel': id, onclick: async event => {
      event.preventDefault();
      if (!confirm('Cancel task ' + id + '?')) return;
      try {
        await api('tasks/' + encodeURIComponent(id) + '/cancel', { method: 'POST', headers: { 'X-Parley-Console-Action': 'cancel' } });
        after();
      } catch (error) {
        failed(error);
      }
    } }, 'Cancel task');
  }

  // --- timelines --------------------------------------------------------------------------

  function answerText(answer) {
    const parts = [answer.key + ': ' + answer.action];
    if (answer.content !== undefined) parts.push(' ' + JSON.stringify(answer.content));
    return el('div', { 'data-answer': answer.key }, parts,
      answer.redacted ? el('span', { class: 'redacted' }, ' (content redacted)') : '');
  }

  function eventChart(container, timeline) {
    const events = timeline.events;
    if (events.length < 2) return;
    const xs = events.map(e => e.sequence);
    const ys = events.map(e => e.sincePreviousMs);
    const chart = new uPlot({
      width: Math.min(1100, view.clientWidth - 20), height: 180, title: 'Time before each journal event (ms)',
      scales: { x: { time: false } },
      series: [{ label: 'event', value: (u, v) => v === null ? '' : v + ' ' + (events[xs.indexOf(v)] || {}).type },
        { label: 'ms since previous', fill: 'rgba(37,99,235,0.35)', stroke: '#2563eb', paths: uPlot.paths.bars({ size: [0.6, 60] }) }],
      axes: [{ label: 'journal sequence number' }, { label: 'ms' }],
    }, [xs, ys], container);
    charts.push(chart);
  }

  async function timeline(kind, id) {
    clearView();
    const mine = generation;
    try {
      const t = await api((kind === 'call' ? 'calls/' : 'tasks/') + encodeURIComponent(id));
      if (mine !== generation) return;
      const chart = el('div', { class: 'chart' });
      view.append(
        el('h2', {}, (kind === 'call' ? 'Call ' : 'Task ') , el('code', {}, t.id)),
        table(['tool', 'method', 'status', 'principal', 'started', 'last event', 'progress'], [el('tr', {},
          el('td', { id: 'timeline-tool' }, t.name), el('td', {}, t.method), el('td', { id: 'timeline-status' }, t.status),
          el('td', {}, el('code', {}, t.principal)), el('td', {}, time(t.startedAt)), el('td', {}, time(t.lastEventAt)),
          el('td', {}, t.statusMessage || ''))]),
        kind === 'task' && (t.status === 'working' || t.status === 'input_required')
          ? el('p', {}, cancelButton(t.id, () => timeline(kind, id))) : '',
        t.contentsShown ? el('p', {}, 'arguments: ', el('code', {}, JSON.stringify(t.arguments)))
          : el('p', { class: 'redacted' }, 'Arguments, answer contents, step values and results are not shown (parley.console.show-contents = off).'),
        el('h2', {}, 'Rounds'),
        table(['round', 'at', 'answers', 'steps', 'questions', 'ended'], t.rounds.map(r => el('tr', { 'data-round': r.number },
          el('td', { class: 'num' }, r.number), el('td', {}, time(r.at)), el('td', {}, r.answers.map(answerText)),
          el('td', {}, r.steps.join(', ')),
          el('td', {}, r.questions.map(q => el('div', { 'data-question': q.key }, q.key + ' (' + (q.mode || q.method) + '): ' + (q.message || '')))),
          el('td', {}, r.ended))), { id: 'rounds' }),
        el('h2', {}, 'Journaled steps'),
        table(['step', 'round', 'at', 'duration', 'value'], t.steps.map(s => el('tr', { 'data-step': s.name },
          el('td', {}, s.name), el('td', { class: 'num' }, s.round), el('td', {}, time(s.at)),
          el('td', { class: 'num' }, s.durationMs === undefined ? '—' : s.durationMs + ' ms'),
          el('td', {}, s.value === undefined ? el('span', { class: 'redacted' }, 'redacted') : el('code', {}, JSON.stringify(s.value))))),
          { id: 'steps' }),
        el('h2', {}, 'Outcome'),
        t.outcome ? table(['status', 'at', 'detail'], [el('tr', { id: 'outcome' }, el('td', {}, t.outcome.status), el('td', {}, time(t.outcome.at)),
          el('td', {}, t.outcome.errorCode !== undefined ? t.outcome.errorCode + ' ' + t.outcome.errorMessage
            : t.outcome.taskId ? el('a', { href: '#/task/' + encodeURIComponent(t.outcome.taskId) }, 'continued as task ' + t.outcome.taskId)
            : t.outcome.result !== undefined ? el('code', {}, JSON.stringify(t.outcome.result)) : ''))])
          : el('p', { class: 'muted' }, 'not ended yet'),
        el('h2', {}, 'Journal events'), chart,
        table(['seq', 'written', 'type', 'since previous'], t.events.map(e => el('tr', {}, el('td', { class: 'num' }, e.sequence),
          el('td', {}, time(e.at)), el('td', {}, el('code', {}, e.type)), el('td', { class: 'num' }, e.sincePreviousMs + ' ms')))));
      eventChart(chart, t);
      fresh();
    } catch (error) {
      failed(error);
    }
  }

  // --- routing ----------------------------------------------------------------------------

  function route() {
    const hash = location.hash.replace(/^#\/?/, '');
    const [path, query] = hash.split('?');
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    document.querySelectorAll('nav a').forEach(a => a.classList.toggle('active',
      a.dataset.nav === (parts[0] === 'call' ? 'calls' : parts[0] === 'task' ? 'tasks' : parts[0] || 'overview')));
    if (parts[0] === 'calls' || parts[0] === 'tasks') return list(parts[0], query || '');
    if ((parts[0] === 'call' || parts[0] === 'task') && parts[1]) return timeline(parts[0], parts[1]);
    return overview();
  }

  window.addEventListener('hashchange', route);
  route();
})();
