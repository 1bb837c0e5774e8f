// bookrule studio: the page's script. Everything shown from a site or a source goes through textContent,
// never innerHTML: this page has scripts and the studio's token, so no site text may become markup here.
'use strict';

const FIELDS = {
  ruleSearch: ['bookList', 'name', 'author', 'intro', 'kind', 'lastChapter', 'updateTime', 'bookUrl', 'coverUrl', 'wordCount'],
  ruleBookInfo: ['init', 'name', 'author', 'intro', 'kind', 'lastChapter', 'updateTime', 'coverUrl', 'tocUrl', 'wordCount'],
  ruleToc: ['chapterList', 'chapterName', 'chapterUrl', 'nextTocUrl', 'isVolume', 'isVip', 'isPay', 'updateTime'],
  ruleContent: ['content', 'title', 'nextContentUrl', 'replaceRegex'],
};
const SECTION = { search: 'ruleSearch', book: 'ruleBookInfo', toc: 'ruleToc', chapter: 'ruleContent' };
// The list rule of a step's section: its other fields read inside each list element.
const LIST_FIELD = { search: 'bookList', toc: 'chapterList' };

const token = new URLSearchParams(location.search).get('token') || '';
// The cookie set with the page carries the token from now on; keep it out of the address bar and history.
if (token) history.replaceState(null, '', '/');

const $ = (id) => document.getElementById(id);
const studio = {
  step: 'search',
  focus: { search: 'bookList', book: 'name', toc: 'chapterList', chapter: 'content' },
  editor: null,
  frameElements: [],
  marked: [],
  picked: null,
  evaluation: 0,
  evaluating: null, // the AbortController of the evaluation in flight
  lastAnswer: null,
};

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

async function api(path, body, signal) {
  const options = { headers: { 'X-Studio-Token': token }, credentials: 'same-origin', signal };
  if (body !== undefined) {
    options.method = 'POST';
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let answer;
  try { answer = await response.json(); } catch (e) { answer = { error: 'HTTP ' + response.status }; }
  if (!response.ok) throw new Error(answer.error || ('HTTP ' + response.status));
  return answer;
}

function setStatus(text, isError, kind) {
  const status = $('status');
  status.textContent = text;
  status.className = isError ? 'error' : '';
  status.dataset.kind = kind || '';
}

// ---- The source: editor and form -------------------------------------------------------------------------

function sourceText() { return studio.editor ? studio.editor.getValue() : $('source').value; }
function setSourceText(text) {
  if (studio.editor) studio.editor.setValue(text); else $('source').value = text;
}

function parsedSource() {
  try { return JSON.parse(sourceText()); } catch (e) { return null; }
}

function buildForm() {
  const form = $('fields');
  form.replaceChildren();
  const section = SECTION[studio.step];
  const source = parsedSource();
  const values = source && typeof source[section] === 'object' && source[section] ? source[section] : {};
  for (const field of FIELDS[section]) {
    const box = element('div', 'field');
    box.id = 'box-' + field;
    const label = element('label');
    label.htmlFor = 'field-' + field;
    label.append(element('span', '', section + '.' + field), element('span', 'count'));
    const input = element('input');
    input.id = 'field-' + field;
    input.value = typeof values[field] === 'string' ? values[field] : (values[field] === undefined ? '' : String(values[field]));
    input.addEventListener('focus', () => setFocus(field));
    input.addEventListener('input', () => formEdited(field, input.value));
    box.append(label, input, element('div', 'reading'), element('ol'), element('div', 'messages'));
    form.append(box);
  }
  markFocusedField();
}

function formEdited(field, value) {
  const source = parsedSource();
  if (!source) { setStatus('fix the JSON first: the form edits a valid source', true, 'json'); return; }
  const section = SECTION[studio.step];
  if (typeof source[section] !== 'object' || source[section] === null) source[section] = {};
  source[section][field] = value;
  studio.formWriting = true;
  setSourceText(JSON.stringify(source, null, 2) + '\n');
  studio.formWriting = false;
  scheduleEvaluation();
}

function sourceEdited() {
  if (studio.formWriting) return;
  // The JSON changed by hand: refill the form's inputs without rebuilding them (keeps focus and caret).
  const source = parsedSource();
  if (source) {
    const section = SECTION[studio.step];
    const values = typeof source[section] === 'object' && source[section] ? source[section] : {};
    for (const field of FIELDS[section]) {
      const input = $('field-' + field);
      if (input && document.activeElement !== input) input.value = values[field] === undefined ? '' : String(values[field]);
    }
  }
  scheduleEvaluation();
}

function setFocus(field) {
  if (studio.focus[studio.step] === field) return;
  studio.focus[studio.step] = field;
  markFocusedField();
  scheduleEvaluation(0);
}

function markFocusedField() {
  for (const box of document.querySelectorAll('.field')) box.classList.toggle('focused', box.id === 'box-' + studio.focus[studio.step]);
}

// The caret on a field's line in the JSON focuses that field (and its section's step).
function cursorMoved() {
  const editor = studio.editor;
  const line = editor.getCursor().line;
  const key = /^\s*"(\w+)"\s*:/.exec(editor.getLine(line));
  if (!key) return;
  let section = null;
  for (let index = line; index >= 0 && !section; index--) {
    const found = /^\s*"(rule(?:Search|BookInfo|Toc|Content))"\s*:/.exec(editor.getLine(index));
    if (found) section = found[1];
  }
  if (!section || FIELDS[section].indexOf(key[1]) === -1) return;
  const step = Object.keys(SECTION).find((name) => SECTION[name] === section);
  studio.focus[step] = key[1];
  if (step !== studio.step) selectStep(step); else { markFocusedField(); scheduleEvaluation(0); }
}

// ---- Evaluation ---------------------------------------------------------------------------------------------

let timer = null;
function scheduleEvaluation(delay) {
  clearTimeout(timer);
  timer = setTimeout(evaluate, delay === undefined ? 150 : delay);
}

async function evaluate() {
  const serial = ++studio.evaluation;
  // The previous evaluation is for an old text: abandon it (the server stops its work when the request goes).
  if (studio.evaluating) studio.evaluating.abort();
  const controller = new AbortController();
  studio.evaluating = controller;
  let answer;
  try {
    answer = await api('/api/evaluate', { source: sourceText(), step: studio.step, field: studio.focus[studio.step] },
                       controller.signal);
  } catch (error) {
    if (serial === studio.evaluation) setStatus(error.message, true);
    return;
  }
  if (serial !== studio.evaluation) return; // a newer edit is on its way
  studio.lastAnswer = answer;
  showEvaluation(answer);
}

function showEvaluation(answer) {
  const syntax = $('syntax-error');
  const problems = $('source-problems');
  problems.replaceChildren();
  if (answer.syntaxError) {
    syntax.hidden = false;
    syntax.textContent = 'line ' + answer.syntaxError.line + ', column ' + answer.syntaxError.column + ': ' + answer.syntaxError.reason;
    problems.append(element('p', 'problem error', 'The JSON does not parse: ' + syntax.textContent));
    return;
  }
  syntax.hidden = true;
  if ($('status').dataset.kind === 'json') setStatus('ready'); // the JSON parses again
  $('page-url').textContent = answer.page ? answer.page.url + ' (' + answer.page.origin + ', HTTP ' + answer.page.status + ', '
    + answer.page.charset + ')' : 'No page for this step yet: run it, or open a saved page';
  const section = SECTION[studio.step];
  for (const problem of answer.problems || []) {
    if (problem.field.indexOf(section + '.') !== -1) continue; // shown at the field below
    const where = problem.line ? ' (line ' + problem.line + ')' : '';
    problems.append(element('p', 'problem ' + problem.severity, (problem.field ? problem.field + ': ' : '') + problem.reason + where));
  }
  const byField = {};
  for (const field of answer.fields || []) byField[field.field] = field;
  for (const name of FIELDS[section]) {
    const box = $('box-' + name);
    if (!box) continue;
    const result = byField[name];
    const count = box.querySelector('.count');
    const reading = box.querySelector('.reading');
    const list = box.querySelector('ol');
    const messages = box.querySelector('.messages');
    list.replaceChildren();
    messages.replaceChildren();
    reading.textContent = '';
    count.textContent = '';
    if (!result) continue;
    if (result.dialect) reading.textContent = result.dialect + (result.translations.length ? ' → ' + result.translations.join(' | ') : '');
    if (answer.page) {
      count.textContent = result.count + (name === FIELDS[section][0] && section !== 'ruleBookInfo' ? ' element(s)' : ' value(s)');
      for (const value of result.values) list.append(element('li', '', value === '' ? '(empty)' : value));
      if (result.count > result.values.length) list.append(element('li', 'hint', '… ' + (result.count - result.values.length) + ' more'));
    }
    for (const warning of result.warnings) messages.append(element('p', 'problem warning', 'warning: ' + warning));
    if (result.error) messages.append(element('p', 'problem error', 'error: ' + result.error));
  }
  showHighlight(answer);
}

function showHighlight(answer) {
  for (const node of studio.marked) node.removeAttribute('data-br-match');
  studio.marked = [];
  const counter = $('highlight-count');
  const focus = answer.focus;
  if (!answer.page) { counter.textContent = ''; counter.dataset.count = ''; return; }
  if (!focus) { counter.textContent = 'no rule for ' + studio.focus[studio.step]; counter.dataset.count = '0'; return; }
  for (const number of focus.nodes) {
    const node = studio.frameElements[number];
    if (node) { node.setAttribute('data-br-match', ''); studio.marked.push(node); }
  }
  let text = focus.field + ': ' + focus.count + ' matched';
  if (focus.unmarked) text += ' (' + focus.unmarked + ' not shown)';
  if (focus.note) text += ' — ' + focus.note;
  counter.textContent = text;
  counter.dataset.count = String(focus.count);
  counter.dataset.marked = String(studio.marked.length);
  if (studio.marked.length && !studio.scrolledFor) {
    studio.marked[0].scrollIntoView({ block: 'center' });
  }
}

// ---- The frame ----------------------------------------------------------------------------------------------

function loadFrame() {
  const frame = $('frame');
  studio.frameElements = [];
  studio.marked = [];
  frame.src = '/frame/' + studio.step + '?v=' + Date.now();
}

function frameLoaded() {
  const frame = $('frame');
  let doc;
  try { doc = frame.contentDocument; } catch (e) { doc = null; }
  if (!doc) return;
  // Index the numbered elements once per page (the numbers are the server's, in its document order).
  const numbered = [];
  for (const node of doc.querySelectorAll('[data-br]')) numbered[Number(node.getAttribute('data-br'))] = node;
  studio.frameElements = numbered;
  doc.addEventListener('click', (event) => {
    event.preventDefault();
    const target = event.target && event.target.closest ? event.target.closest('[data-br]') : null;
    if (target) propose(Number(target.getAttribute('data-br')), target);
  }, true);
  if (studio.lastAnswer) showHighlight(studio.lastAnswer);
  scheduleEvaluation(0);
}

async function propose(number, node) {
  if (studio.picked) studio.picked.removeAttribute('data-br-picked');
  node.setAttribute('data-br-picked', '');
  studio.picked = node;
  const box = $('proposal');
  box.replaceChildren(element('p', 'hint', 'asking…'));
  let answer;
  // A field read inside the list's elements gets rules relative to the list element holding the node.
  const field = studio.focus[studio.step];
  const listField = LIST_FIELD[studio.step];
  let query = '/api/propose?step=' + studio.step + '&node=' + number;
  const list = listField && field !== listField ? (parsedSource() || {})[SECTION[studio.step]] : null;
  if (list && typeof list === 'object' && typeof list[listField] === 'string' && list[listField].trim()) {
    query += '&list=' + encodeURIComponent(list[listField]);
  }
  try { answer = await api(query); } catch (error) {
    box.replaceChildren(element('p', 'error', error.message));
    return;
  }
  box.replaceChildren(element('p', '', answer.path), element('p', 'hint', answer.text));
  if (answer.listElement) box.append(element('p', 'hint', 'relative to the list element ' + answer.listElement + ' (matches summed over every list element)'));
  for (const candidate of answer.candidates) {
    const item = element('div', 'candidate');
    item.append(element('strong', '', candidate.kind + ' — ' + (candidate.error ? candidate.error : candidate.matches + ' match(es)')));
    item.append(element('code', '', candidate.rule));
    const use = element('button', '', 'Use for ' + studio.focus[studio.step]);
    use.type = 'button';
    use.addEventListener('click', () => {
      const field = studio.focus[studio.step];
      const input = $('field-' + field);
      if (input) input.value = candidate.rule;
      formEdited(field, candidate.rule);
    });
    item.append(use);
    box.append(item);
  }
}

// ---- Steps ------------------------------------------------------------------------------------------------

function selectStep(step) {
  // The page is loaded again: a clicked node of the page before is gone with it.
  studio.picked = null;
  $('proposal').replaceChildren(element('p', 'hint', 'Click an element of the page to get an XPath and a CSS selector for it.'));
  studio.step = step;
  for (const tab of document.querySelectorAll('.step-tab')) tab.classList.toggle('active', tab.dataset.step === step);
  buildForm();
  loadFrame();
}

async function runStep(step) {
  const value = $('url-' + step).value.trim();
  const body = { source: sourceText(), step: step, live: $('live').checked, record: $('record').checked };
  if (step === 'search') body.keyword = value; else body.url = value;
  setStatus('running the ' + step + ' step…');
  let answer;
  try { answer = await api('/api/step', body); } catch (error) { setStatus(error.message, true); return; }
  setStatus(answer.error ? step + ' failed' : step + ' done' + (answer.recorded ? ', ' + answer.recorded + ' request(s) recorded' : ''), !!answer.error);
  showStepResult(answer);
  selectStep(step);
}

function pickLink(text, target, url) {
  const link = element('a', 'pick', text);
  link.addEventListener('click', () => { $('url-' + target).value = url; });
  return link;
}

function showStepResult(answer) {
  const box = $('step-result');
  box.replaceChildren(element('p', '', answer.step + (answer.url ? ': ' + answer.url : '')));
  if (answer.error) box.append(element('p', 'error', answer.error));
  for (const warning of answer.warnings || []) box.append(element('p', 'warning', warning));
  if (answer.search) {
    const list = element('ul', 'compact');
    for (const result of answer.search) { const item = element('li'); item.append(pickLink(result.name + ' — ' + result.author, 'book', result.bookURL)); list.append(item); }
    box.append(element('p', '', answer.search.length + ' result(s); click one to use it as the book'), list);
    if (answer.search[0]) $('url-book').value = answer.search[0].bookURL;
  }
  if (answer.book) {
    const b = answer.book;
    box.append(element('p', '', b.name + ' / ' + b.author), element('p', 'hint', 'TOC: ' + b.tocURL));
    $('url-toc').value = b.tocURL || b.url;
  }
  if (answer.chapters) {
    const list = element('ul', 'compact');
    for (const chapter of answer.chapters) { const item = element('li'); item.append(pickLink((chapter.isVolume ? '[volume] ' : '') + chapter.title, 'chapter', chapter.url)); list.append(item); }
    box.append(element('p', 'toc-count', answer.chapterCount + ' chapter(s)'), list);
    const first = answer.chapters.find((c) => !c.isVolume);
    if (first) $('url-chapter').value = first.url;
  }
  if (answer.content) {
    box.append(element('p', '', answer.content.title || ''), element('pre', 'chapter-text', answer.content.text.slice(0, 2000)));
  }
  if (answer.requests && answer.requests.length) {
    const list = element('ul', 'compact');
    for (const request of answer.requests) list.append(element('li', 'hint', request));
    box.append(list);
  }
}

async function openSavedPage() {
  const file = $('fixture-file').value;
  const url = $('fixture-url').value.trim();
  if (!file || !url) { setStatus('choose a saved page and give its real URL', true); return; }
  try {
    const page = await api('/api/page', { step: studio.step, file: file, url: url });
    setStatus('opened ' + file + ' as the ' + studio.step + ' page (' + page.elements + ' elements)');
  } catch (error) { setStatus(error.message, true); return; }
  loadFrame();
}

async function runTest() {
  setStatus('running bookrule test…');
  const box = $('test-report');
  let report;
  try {
    report = await api('/api/test', { source: sourceText(), book: $('url-book').value.trim(), chapter: $('url-chapter').value.trim() });
  } catch (error) { setStatus(error.message, true); return; }
  const passed = report.steps.every((s) => s.status !== 'failed');
  setStatus('test ' + (passed ? 'passed' : 'failed'), !passed);
  box.replaceChildren(element('p', passed ? 'step-status passed' : 'step-status failed', report.source + ': ' + (passed ? 'passed' : 'failed')));
  for (const step of report.steps) {
    const item = element('div', 'test-step');
    item.append(element('strong', 'step-status ' + step.status, step.status + ' '), document.createTextNode(step.name + ' (' + Math.round(step.milliseconds) + ' ms)'));
    if (step.error) item.append(element('p', 'error', step.error));
    for (const check of step.checks || []) {
      if (check.passed === false || check.status === 'failed') item.append(element('p', 'warning', (check.name || '') + ' ' + (check.message || check.detail || '')));
    }
    box.append(item);
  }
}

async function save() {
  try {
    const saved = await api('/api/save', { source: sourceText() });
    setStatus('saved ' + saved.path + (saved.backup ? ' (previous version in ' + saved.backup + ')' : ''));
  } catch (error) { setStatus(error.message, true); }
}

// ---- Start --------------------------------------------------------------------------------------------------

async function start() {
  let state;
  try { state = await api('/api/state'); } catch (error) { setStatus(error.message, true); return; }
  $('source-path').textContent = state.sourcePath || 'new source (not saved)';
  $('save').disabled = !state.canSave;
  $('live').disabled = !state.live;
  $('record').disabled = !state.live || !state.fixtureDirectory;
  for (const file of state.fixtureFiles) { const option = element('option', '', file); option.value = file; $('fixture-file').append(option); }
  const textarea = $('source');
  textarea.value = state.source;
  if (window.CodeMirror) {
    studio.editor = window.CodeMirror.fromTextArea(textarea, { mode: { name: 'javascript', json: true }, lineNumbers: true,
      matchBrackets: true, autoCloseBrackets: true, lineWrapping: true });
    studio.editor.on('change', sourceEdited);
    studio.editor.on('cursorActivity', cursorMoved);
    $('editor-kind').textContent = 'CodeMirror, JSON mode';
  } else {
    textarea.addEventListener('input', sourceEdited);
    $('editor-kind').textContent = 'plain text box (CodeMirror not installed)';
  }
  for (const tab of document.querySelectorAll('.tab')) {
    tab.addEventListener('click', () => {
      for (const other of document.querySelectorAll('.tab')) other.classList.toggle('active', other === tab);
      $('json-view').hidden = tab.dataset.view !== 'json';
      $('form-view').hidden = tab.dataset.view !== 'form';
      if (studio.editor) studio.editor.refresh();
    });
  }
  for (const tab of document.querySelectorAll('.step-tab')) tab.addEventListener('click', () => selectStep(tab.dataset.step));
  for (const button of document.querySelectorAll('.run')) button.addEventListener('click', () => runStep(button.dataset.step));
  $('open-page').addEventListener('click', openSavedPage);
  $('run-test').addEventListener('click', runTest);
  $('save').addEventListener('click', save);
  $('frame').addEventListener('load', frameLoaded);
  const first = firstStepWithPage(state.pages);
  selectStep(first || 'search');
  setStatus('ready');
  // With a fixture and no page opened yet, the first screen runs the search step on the fixture (offline), so
  // it shows the site's page with the focused rule's marks rather than an empty frame.
  if (!first && state.fixtureDirectory) runStep('search');
}

function firstStepWithPage(pages) {
  for (const step of ['toc', 'book', 'search', 'chapter']) if (pages && pages[step]) return step;
  return null;
}

start();
