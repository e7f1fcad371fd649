// Shared pieces of the CPU/memory benchmarks (cpu-rows.js, compare-plans.js): the benchmark
// repositories, an emulator in its own process, and a CLI run measured as a whole process (user +
// system CPU seconds and peak RSS from /usr/bin/time, wall time). Nothing here writes outside the
// temporary folders it is given and bench/out/.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { Buffer } from 'node:buffer';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..');
export const OUT = path.join(HERE, 'out');
const TEN_MIB = 10 * 1024 * 1024;

const CONFIG =
  'version: 1\nresources: [glossaries]\nprune: "off"\nrate_limit: { requests_per_second: 1000, concurrency: 8 }\n' +
  'targets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

// The words of the 10 MiB dictionary: what a product catalogue's terminology holds, in the scripts
// a real one mixes. Latin: English, and German, French, Spanish, Portuguese, Nordic, Polish and
// Czech words with their diacritics (precomposed, as files are written: NFC); Cyrillic: Russian and
// Ukrainian; CJK: Chinese, Japanese (kanji, kana) and Korean.
const WORDS = {
  latin: (
    'jacket waterproof size colour return shipping cart order invoice account password settings search filter price ' +
    'discount delivery warranty battery charger screen keyboard storage capacity weight material cotton leather ' +
    'wool zipper pocket hood sleeve collar button sole heel lining outdoor hiking running cycling swimming ' +
    'Größe Übersicht Schlüssel Fußgänger Straße wasserdicht Rücksendung Bestellübersicht Lieferzeit Gewährleistung ' +
    'Kapazität Oberfläche Bügel Reißverschluss Ärmel Kälteschutz Nähte café crème façade résumé naïve élégant ' +
    'prévisualisation imperméable garçon fenêtre pâtisserie délai récupération numéro niño mañana tamaño ' +
    'envío devolución contraseña búsqueda garantía almacén açúcar coração São informação pagamento ' +
    'smörgåsbord fjäll Ångström øl æble kærlighed żółw Łódź Kraków zażółć gęślą jaźń čeština Dvořák přílišný ' +
    'žluťoučký kůň úpěl ďábelské ódy'
  ).split(' '),
  cyrillic: (
    'размер товар куртка водонепроницаемый настройки пользователь файл сохранить отмена ошибка поиск цена ' +
    'доставка корзина заказ счёт ёмкость объём возврат гарантия аккумулятор зарядное экран клавиатура ' +
    'хранилище вес материал хлопок кожа шерсть молния карман капюшон рукав воротник пуговица подошва ' +
    'каблук подкладка туризм бег велосипед плавание скидка фильтр пароль учётная запись оплата ' +
    'налаштування користувач зберегти скасувати помилка пошук ціна доставка кошик замовлення їжа ' +
    'єдиний ґанок подвір’я'
  ).split(' '),
  cjk: (
    '防水 夹克 尺寸 设置 用户 文件 保存 取消 错误 搜索 价格 配送 购物车 订单 发票 账户 密码 筛选 折扣 保修 ' +
    '电池 充电器 屏幕 键盘 存储 容量 重量 材料 棉 皮革 羊毛 拉链 口袋 兜帽 袖子 衣领 纽扣 鞋底 ' +
    'ジャケット サイズ 設定 保存する キャンセル 検索 価格 注文 カート 配送料 返品 保証 バッテリー 画面 ' +
    'キーボード 容量 素材 綿 革 ウール ファスナー ポケット フード 袖 襟 ボタン 靴底 登山 ランニング ' +
    '재킷 크기 설정 사용자 파일 저장 취소 오류 검색 가격 배송 장바구니 주문 반품 보증 배터리 화면'
  ).split(' '),
};

/**
 * A phrase of `random`'s choosing: its script (Latin half the time, Cyrillic and CJK a quarter
 * each), its length (mostly one to three words, now and then a longer description of up to
 * sixteen), a capital now and then, a model number now and then. CJK words are not spaced.
 */
function phrase(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const r = random();
  const script = r < 0.5 ? 'latin' : r < 0.75 ? 'cyrillic' : 'cjk';
  const l = random();
  const count = l < 0.35 ? 1 : l < 0.65 ? 2 : l < 0.85 ? 3 : l < 0.95 ? 4 + Math.floor(random() * 4) : 8 + Math.floor(random() * 9);
  const words = [];
  for (let i = 0; i < count; i++) words.push(pick(WORDS[script]));
  if (script !== 'cjk' && random() < 0.3) words[0] = words[0].charAt(0).toUpperCase() + words[0].slice(1);
  if (random() < 0.2) words.push(`${pick(['X', 'Pro', 'M', 'S', 'Ultra', 'Mk'])}${Math.floor(random() * 1000)}`);
  return words.join(script === 'cjk' ? '' : ' ');
}

/** Seed of the 10 MiB dictionary's corpus. */
const BIG_SEED = 20261126;

/**
 * One 10 MiB dictionary in one glossary, of varied, real-looking terms: mixed scripts (Latin with
 * diacritics, Cyrillic, CJK), varied lengths, in random order (sources distinct, also in case:
 * no duplicate and no case twin), the same on every run (seeded). About 155,000 entries: CJK and
 * Cyrillic take two and three bytes a character.
 */
export async function generateBig(root) {
  await mkdir(path.join(root, 'config'), { recursive: true });
  await mkdir(path.join(root, 'glossaries'), { recursive: true });
  await writeFile(path.join(root, 'config', 'termsync.yaml'), CONFIG);
  await writeFile(
    path.join(root, 'glossaries', 'big.yaml'),
    'kind: glossary\nname: Catalogue\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: big.en-de.tsv\n',
  );
  // The emulator's seeded generator (mulberry32): the same corpus on every run and machine.
  const { createRandom } = await import(pathToFileURL(path.join(ROOT, 'dist', 'emulator', 'random.js')).href);
  const random = createRandom(BIG_SEED);
  const seen = new Set();
  const lines = [];
  let size = 0;
  while (size < TEN_MIB - 2000) {
    const source = phrase(random);
    const key = source.toLowerCase();
    if (seen.has(key)) continue;
    const line = `${source}\t${phrase(random)}\n`;
    const bytes = Buffer.byteLength(line);
    if (size + bytes > TEN_MIB - 100) break;
    seen.add(key);
    size += bytes;
    lines.push(line);
  }
  await writeFile(path.join(root, 'glossaries', 'big.en-de.tsv'), lines.join(''));
  return { file: path.join(root, 'glossaries', 'big.en-de.tsv'), entries: lines.length };
}

/** The line of the big dictionary that the k-th of `count` edits changes (spread over the file). */
const editedLine = (k, count, lines) => Math.floor(((k + 0.5) * lines) / count);

/**
 * Changes the target of `count` entries of the big dictionary, spread over the file (each gets
 * ` neu` appended; no word of the corpus is `neu`); `undo` puts them back.
 */
export async function editBigTerms(root, count, undo = false) {
  const file = path.join(root, 'glossaries', 'big.en-de.tsv');
  // Line by line: a hundred String.replace calls on the 10 MiB string took 22 s.
  const lines = (await readFile(file, 'utf8')).split('\n');
  const entries = lines.length - 1;
  for (let k = 0; k < count; k++) {
    const i = editedLine(k, count, entries);
    const edited = lines[i].endsWith(' neu');
    if (edited !== undo) throw new Error(`${file}:${i + 1}: ${undo ? 'not' : 'already'} edited: "${lines[i]}"`);
    lines[i] = undo ? lines[i].slice(0, -' neu'.length) : `${lines[i]} neu`;
  }
  await writeFile(file, lines.join('\n'));
}

/** Edits one term of the big dictionary (`undo` puts it back). */
export async function editBig(root, undo = false) {
  await editBigTerms(root, 1, undo);
}

/** Renames the source of one entry of the big dictionary (one removed, one added), a line other than editBig's. */
export async function renameBigSource(root) {
  const file = path.join(root, 'glossaries', 'big.en-de.tsv');
  const lines = (await readFile(file, 'utf8')).split('\n');
  const i = 777;
  lines[i] = lines[i].replace('\t', ' removed\t');
  await writeFile(file, lines.join('\n'));
}

/** 1,000 glossaries × 2 dictionaries × 1,000 entries. */
export async function generateMany(root, glossaries = 1000, entries = 1000) {
  await mkdir(path.join(root, 'config'), { recursive: true });
  await mkdir(path.join(root, 'glossaries', 'entries'), { recursive: true });
  await writeFile(path.join(root, 'config', 'termsync.yaml'), CONFIG);
  const langs = ['de', 'fr'];
  for (let g = 0; g < glossaries; g++) {
    const dictionaries = langs.map((lang) => `  - source_lang: en\n    target_lang: ${lang}\n    entries_file: entries/g${g}.en-${lang}.tsv\n`).join('');
    await writeFile(path.join(root, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: Catalogue ${g}\ndictionaries:\n${dictionaries}`);
    for (const lang of langs) {
      let text = '';
      for (let i = 0; i < entries; i++) text += `product term ${g}-${i} (catalogue)\tProduktbegriff ${lang} ${g}-${i} Größe\n`;
      await writeFile(path.join(root, 'glossaries', 'entries', `g${g}.en-${lang}.tsv`), text);
    }
  }
}

/**
 * G glossaries × D dictionaries × E entries as bench/run.js generates them for its daemon rows (its
 * rate of 1,000 a second, 8 at once): `Größe` in every target term, entries files under
 * glossaries/entries/ (bench/watch-edit.js, bench/first-load.js).
 */
export async function generateCatalogue(root, glossaries, dictionaries, entries) {
  await mkdir(path.join(root, 'config'), { recursive: true });
  await mkdir(path.join(root, 'glossaries', 'entries'), { recursive: true });
  await writeFile(path.join(root, 'config', 'termsync.yaml'), CONFIG);
  const langs = ['de', 'fr', 'es', 'it', 'nl'].slice(0, dictionaries);
  for (let g = 0; g < glossaries; g++) {
    const dicts = langs.map((l) => `  - source_lang: en\n    target_lang: ${l}\n    entries_file: entries/g${g}.en-${l}.tsv\n`).join('');
    await writeFile(path.join(root, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: Catalogue ${g}\ndictionaries:\n${dicts}`);
    for (const l of langs) {
      let text = '';
      for (let i = 0; i < entries; i++) text += `product term ${g}-${i}\tProduktbegriff ${l} ${g}-${i} Größe\n`;
      await writeFile(path.join(root, 'glossaries', 'entries', `g${g}.en-${l}.tsv`), text);
    }
  }
}

/**
 * Starts `termsync emulator` of the current build in its own process; its CPU is not measured.
 * `extra`: further emulator options (e.g. `--rate-limit 20`). An emulator that dies before
 * `close()` is said at once (the requests that follow would only fail with connection errors).
 */
export async function startEmulatorProcess({ latency = '20-40', extra = [] } = {}) {
  const args = [path.join(ROOT, 'bin', 'termsync.js'), 'emulator', '--port', '0', '--log-level', 'silent', '--seed', '1'];
  if (latency) args.push('--faults', `latency=${latency}`);
  args.push(...extra);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  child.stdout.resume();
  let closing = false;
  child.once('exit', (code, signal) => {
    if (!closing) console.error(`the emulator (${args.slice(2).join(' ')}) exited: code ${code}, signal ${signal}`);
  });
  const control = async (name, body) => {
    const res = await requestOnce(`${url}/__emulator/${name}`, 'POST', JSON.stringify(body ?? {}));
    if (res.status < 200 || res.status > 299) throw new Error(`emulator ${name}: ${res.status}`);
  };
  return {
    url,
    pid: child.pid,
    reset: () => control('reset'),
    faults: (spec) => control('faults', { spec }),
    async log() {
      const res = await requestOnce(`${url}/__emulator/requests`, 'GET');
      if (res.status !== 200) throw new Error(`emulator requests: ${res.status}`);
      return JSON.parse(res.text).requests;
    },
    async close() {
      closing = true;
      if (child.exitCode !== null || child.signalCode !== null) return; // already gone (its exit is reported above)
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/**
 * One request on a connection of its own, closed after the answer: for the bench's control and
 * status calls (the emulator's `/__emulator/*`, a daemon's `/status`). Not fetch: its pooled
 * keep-alive connection outlives the server's idle timeout (the emulator's is 5 s) while measure()
 * blocks this process's event loop in spawnSync for far longer, and the next call then goes out on
 * a connection the server has already closed ("other side closed").
 */
export function requestOnce(url, method = 'GET', body = undefined) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent: false, headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** GET of a JSON answer through requestOnce; throws unless the status is 2xx. */
export async function getJson(url) {
  const res = await requestOnce(url);
  if (res.status < 200 || res.status > 299) throw new Error(`GET ${url}: ${res.status}`);
  return JSON.parse(res.text);
}

/**
 * Runs `node <build>/bin/termsync.js ...args` (or `node ...nodeArgs` for a bare node) as one
 * measured process: CPU seconds (user + system), peak RSS (MB) and wall seconds.
 */
export function measure(args, { cwd = ROOT, env = {}, expect = [0], bare = false, build = ROOT, stdin } = {}) {
  const argv = bare ? [process.execPath, ...args] : [process.execPath, path.join(build, 'bin', 'termsync.js'), ...args];
  const start = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', '__time__ %U %S %M', ...argv], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    ...(stdin === undefined ? {} : { input: stdin }),
  });
  const wall = (performance.now() - start) / 1000;
  const line = run.stderr.split('\n').reverse().find((l) => l.startsWith('__time__'));
  if (line === undefined) throw new Error(`no timing for ${args.join(' ')}: ${run.stderr}`);
  const [, user, sys, maxKb] = line.split(' ');
  const code = run.status;
  if (!expect.includes(code)) throw new Error(`${args.join(' ')} exited ${code} (expected ${expect.join(' or ')}):\n${run.stderr.slice(-2000)}`);
  return { cpu: Number(user) + Number(sys), user: Number(user), sys: Number(sys), rssMb: (Number(maxKb) * 1024) / 1e6, wall, code, stdout: run.stdout };
}

export function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1), n: sorted.length };
}

export function fmt(s, digits = 2, unit = '') {
  return `${s.median.toFixed(digits)}${unit} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)}, n=${s.n})`;
}

/** A build to measure: a folder holding bin/termsync.js and a built dist/ (default: this one). */
export function resolveBuild(dir) {
  const build = path.resolve(dir ?? ROOT);
  if (!existsSync(path.join(build, 'bin', 'termsync.js')) || !existsSync(path.join(build, 'dist', 'cli', 'main.js'))) {
    throw new Error(`${build} is not a built termsync (no bin/termsync.js or dist/cli/main.js; run npm run build there)`);
  }
  return build;
}

/** `--name value` and `--flag` of argv. */
export function parseArgs(argv) {
  usageIfAsked(argv);
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) out[a.slice(2)] = true;
    else {
      out[a.slice(2)] = next;
      i++;
    }
  }
  return out;
}

/**
 * With `--help` or `-h`: prints what the bench script does and how it is called (the comment at the
 * head of its file: every script opens with one, its usage line among it) and exits 0, instead of
 * starting a run that can take half an hour.
 */
export function usageIfAsked(argv) {
  if (!argv.includes('--help') && !argv.includes('-h')) return;
  process.stdout.write(usageOf(process.argv[1]));
  process.exit(0);
}

/** The comment at the head of a bench script (see usageIfAsked). */
export function usageOf(script) {
  const lines = readFileSync(script, 'utf8').split('\n');
  const head = [];
  for (const line of lines.slice(lines[0]?.startsWith('#!') ? 1 : 0)) {
    if (!line.startsWith('//')) break;
    head.push(line.replace(/^\/\/ ?/, ''));
  }
  return `${head.join('\n')}\n`;
}

/** The bytes and the number of the files under a folder (their sizes, not the blocks they take on disk). */
export async function sizeOf(dir) {
  let bytes = 0;
  let files = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
    files += 1;
  }
  return { bytes, files };
}

// Workbook rows: short terms, so that 2 × 100,000 entries stay within the service's 10 MiB per glossary.
export const workbookCell = (lang, i) => ({ en: `jacket model ${i}`, de: `Jacke Modell ${i}`, fr: `veste modèle ${i}` })[lang];

/** A workbook as a spreadsheet program saves one (shared strings): a header row en, de, fr and `rows` rows of terms. */
export async function generateWorkbook(file, rows) {
  const { default: ExcelJS } = await import('exceljs');
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: true });
  const sheet = writer.addWorksheet('Terms');
  sheet.addRow(['en', 'de', 'fr']).commit();
  for (let i = 0; i < rows; i++) sheet.addRow([workbookCell('en', i), workbookCell('de', i), workbookCell('fr', i)]).commit();
  await writer.commit();
}

/** A repository of one glossary whose entries are a workbook of `rows` rows (generateWorkbook); returns the workbook's path. */
export async function generateWorkbookRepository(root, rows) {
  await mkdir(path.join(root, 'glossaries', 'entries'), { recursive: true });
  await writeFile(path.join(root, 'termsync.yaml'), 'version: 1\nresources: [glossaries]\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n');
  await writeFile(path.join(root, 'glossaries', 'g.yaml'), 'kind: glossary\nname: G\nentries_file: entries/terms.xlsx\nlanguages: [en, de, fr]\n');
  const file = path.join(root, 'glossaries', 'entries', 'terms.xlsx');
  await generateWorkbook(file, rows);
  return file;
}

/**
 * One loadRepository of `dir` in a fresh process (as `validate` or `plan` loads it), by the build
 * whose dist/ is `build`: wall ms of the load, CPU ms of the process so far (all threads), peak RSS
 * (MiB), entries and diagnostics.
 */
export async function loadInChild(dir, build = ROOT) {
  const dist = pathToFileURL(path.join(build, 'dist', 'config', 'index.js')).href;
  const code = `const { loadRepository } = await import(${JSON.stringify(dist)});
const cpu = process.cpuUsage(); const start = performance.now();
const result = await loadRepository({ dir: ${JSON.stringify(dir)} });
const ms = performance.now() - start; const used = process.cpuUsage(cpu);
const entries = result.desired.glossaries.reduce((n, g) => n + g.dictionaries.reduce((m, d) => m + d.entries.size, 0), 0);
console.log(JSON.stringify({ ms, cpu: (used.user + used.system) / 1000, rss: process.resourceUsage().maxRSS / 1024, entries, diagnostics: result.diagnostics.length }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', maxBuffer: 1 << 24 });
  return JSON.parse(stdout);
}
