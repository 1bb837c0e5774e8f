(function (N) {
const G = globalThis;
function hide(object, name, value) {
    Object.defineProperty(object, name, { value: value, writable: true, configurable: true, enumerable: false });
}
function str(value) { return value === undefined || value === null ? null : String(value); }

// Java list and string methods sources call on values that are Java objects in Legado.
hide(Array.prototype, 'size', function () { return this.length; });
hide(Array.prototype, 'get', function (index) { return this[index]; });
hide(Array.prototype, 'isEmpty', function () { return this.length === 0; });
hide(Array.prototype, 'toArray', function () { return Array.from(this); });
hide(Array.prototype, 'add', function (item) { this.push(item); return true; });
hide(String.prototype, 'equals', function (other) { return String(this) === String(other); });
hide(String.prototype, 'contains', function (part) { return String(this).indexOf(String(part)) >= 0; });
hide(String.prototype, 'isEmpty', function () { return this.length === 0; });
hide(String.prototype, 'getBytes', function (charset) { return N.encode(String(this), str(charset) || 'UTF-8'); });
hide(String.prototype, 'matches', function (pattern) { return new RegExp('^(?:' + pattern + ')$').test(String(this)); });

// Refusals: what a source may not reach, with the reason in the error.
const FILES = 'sources may not read or write files';
const JAVA = 'Java classes are not available: sources run JavaScript only (no Java, no reflection)';
const BROWSER = 'needs a browser window a person looks at, which bookrule does not show';
const PERSON = 'needs a person to answer, and bookrule runs unattended';
function refused(name, why) {
    return function () { throw new Error(name + ' is refused: ' + why); };
}
function unavailable(name, why) {
    return function () { throw new Error(name + ' ' + why); };
}
function javaPackage(path, members) {
    return new Proxy(function () {}, {
        get(target, property) {
            if (typeof property === 'symbol') return undefined;
            if (members && Object.prototype.hasOwnProperty.call(members, property)) return members[property];
            throw new Error(path + '.' + property + ' is refused: ' + JAVA);
        },
        has() { return false; },
        apply() { throw new Error(path + ' is refused: ' + JAVA); },
        construct() { throw new Error(path + ' is refused: ' + JAVA); }
    });
}

// The clock. Under a fixed clock `Date` and `Math.random` are replaced (installFixedClock).
const RealDate = Date;
let fixedNow = null;
let clockTicks = 0;
let randomState = 0;
function now() { return fixedNow === null ? RealDate.now() : fixedNow + (clockTicks++); }
function seededRandom() {
    randomState = (randomState + 0x6D2B79F5) | 0;
    let t = randomState;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function installFixedClock() {
    function BookruleDate(...args) {
        if (!new.target) return new RealDate(now()).toString();
        return Reflect.construct(RealDate, args.length ? args : [now()], new.target);
    }
    BookruleDate.prototype = RealDate.prototype;
    BookruleDate.now = now;
    BookruleDate.UTC = RealDate.UTC;
    BookruleDate.parse = RealDate.parse;
    hide(RealDate.prototype, 'constructor', BookruleDate);
    hide(G, 'Date', BookruleDate);
    hide(Math, 'random', seededRandom);
}
function resetClock(milliseconds, seedHigh, seedLow) {
    fixedNow = milliseconds;
    clockTicks = 0;
    randomState = (seedHigh ^ seedLow ^ 0x9E3779B9) | 0;
}
// timeFormat formats in the machine's zone (Legado: the phone's), or UTC+8 under a fixed clock.
function localOffset(milliseconds) {
    return fixedNow === null ? -new RealDate(milliseconds).getTimezoneOffset() * 60000 : 8 * 3600000;
}
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
    'October', 'November', 'December'];
// Java's SimpleDateFormat for the letters sources use: y M d H h k K m s S E a Z X, and 'quoted' text.
function formatDate(milliseconds, pattern, offset) {
    const d = new RealDate(Number(milliseconds) + offset);
    function pad(number, width) { let s = String(number); while (s.length < width) s = '0' + s; return s; }
    function field(letter, count) {
        switch (letter) {
        case 'y': { const y = d.getUTCFullYear(); return count === 2 ? pad(y % 100, 2) : pad(y, count); }
        case 'M': {
            const m = d.getUTCMonth();
            if (count >= 4) return MONTHS[m];
            if (count === 3) return MONTHS[m].slice(0, 3);
            return pad(m + 1, count);
        }
        case 'd': return pad(d.getUTCDate(), count);
        case 'H': return pad(d.getUTCHours(), count);
        case 'k': return pad(d.getUTCHours() || 24, count);
        case 'K': return pad(d.getUTCHours() % 12, count);
        case 'h': return pad(d.getUTCHours() % 12 || 12, count);
        case 'm': return pad(d.getUTCMinutes(), count);
        case 's': return pad(d.getUTCSeconds(), count);
        case 'S': return pad(d.getUTCMilliseconds(), count);
        case 'E': return count >= 4 ? DAYS[d.getUTCDay()] : DAYS[d.getUTCDay()].slice(0, 3);
        case 'a': return d.getUTCHours() < 12 ? 'AM' : 'PM';
        case 'Z': case 'X': {
            const minutes = Math.round(offset / 60000);
            const sign = minutes < 0 ? '-' : '+';
            const hours = pad(Math.floor(Math.abs(minutes) / 60), 2);
            const rest = pad(Math.abs(minutes) % 60, 2);
            if (letter === 'X' && minutes === 0) return 'Z';
            return letter === 'X' && count >= 3 ? sign + hours + ':' + rest : sign + hours + rest;
        }
        default: return letter.repeat(count);
        }
    }
    let out = '';
    for (let i = 0; i < pattern.length;) {
        const c = pattern[i];
        if (c === "'") {
            const end = pattern.indexOf("'", i + 1);
            if (end === i + 1) { out += "'"; i += 2; continue; }
            out += pattern.slice(i + 1, end < 0 ? pattern.length : end);
            i = end < 0 ? pattern.length : end + 1;
        } else if (/[A-Za-z]/.test(c)) {
            let j = i;
            while (j < pattern.length && pattern[j] === c) j++;
            out += field(c, j - i);
            i = j;
        } else {
            out += c;
            i++;
        }
    }
    return out;
}

// Bytes, hex and Base64 (byte arrays are arrays of numbers, as Java's byte[] looks to a script).
function bytesOf(value, charset) {
    if (value === null || value === undefined) return [];
    if (Array.isArray(value)) return value;
    if (typeof value === 'object' && typeof value.length === 'number') return Array.from(value);
    return N.encode(String(value), charset || 'UTF-8');
}
function hexOf(bytes) {
    let out = '';
    for (const b of bytes) out += ((b & 0xFF) < 16 ? '0' : '') + (b & 0xFF).toString(16);
    return out;
}
function bytesOfHex(hex) {
    const clean = String(hex).replace(/\s+/g, '');
    const out = [];
    for (let i = 0; i + 1 < clean.length; i += 2) {
        const b = parseInt(clean.substr(i, 2), 16);
        if (isNaN(b)) throw new Error('not hexadecimal: ' + clean.substr(i, 2));
        out.push(b > 127 ? b - 256 : b);
    }
    return out;
}
// Android's Base64 flags: DEFAULT 0 (lines of 76 and a final newline), NO_PADDING 1, NO_WRAP 2, URL_SAFE 8.
function base64Of(bytes, flags) {
    let text = N.base64Encode(bytes);
    if (flags & 8) text = text.replace(/\+/g, '-').replace(/\//g, '_');
    if (flags & 1) text = text.replace(/=+$/, '');
    if (!(flags & 2) && text.length) text = text.replace(/.{1,76}/g, '$&\n');
    return text;
}
// Hutool's decode for cipher input: hex when it is all hex digits, else Base64.
function cipherInput(data) {
    if (Array.isArray(data)) return data;
    const text = String(data);
    return /^[0-9a-fA-F]+$/.test(text) && text.length % 2 === 0 ? bytesOfHex(text) : N.base64Decode(text);
}

// Responses.
function headerNamed(headers, name) {
    const wanted = String(name).toLowerCase();
    for (const key of Object.keys(headers)) if (key.toLowerCase() === wanted) return headers[key];
    return null;
}
// What java.connect and java.ajaxAll return (Legado's StrResponse).
// Fonts (Legado's QueryTTF): a font's bytes from a URL (fetched through the source's fetcher), a data: URL, Base64
// or a byte array; the object answers by the native outlines FreeType read.
function fontBytes(data) {
    if (data === null || data === undefined) return null;
    if (typeof data === 'object' && typeof data.fontHandle === 'number') return data.fontHandle;
    if (Array.isArray(data) || (typeof data === 'object' && typeof data.length === 'number')) return bytesOf(data);
    const text = String(data).trim();
    if (text === '') return null;
    if (/^https?:\/\//i.test(text)) return N.fetchBytes(text);
    if (/^data:/i.test(text)) return N.base64Decode(text.substring(text.indexOf(',') + 1));
    return N.base64Decode(text);
}
function queryTTF(data) {
    let handle = fontBytes(data);
    if (handle === null) return null;
    if (typeof handle !== 'number') handle = N.fontOpen(handle);
    const code = (u) => typeof u === 'string' && u.length > 0 && isNaN(Number(u)) ? u.codePointAt(0) : Number(u);
    return {
        fontHandle: handle,
        getGlyfIdByUnicode(u) { return N.fontQuery(handle, 'glyphId', code(u)); },
        getGlyfByUnicode(u) { return N.fontQuery(handle, 'outline', code(u)); },
        getGlyfById(id) { return N.fontQuery(handle, 'outlineOfGlyph', Number(id)); },
        getUnicodeByGlyf(glyf) { return N.fontQuery(handle, 'code', glyf === null || glyf === undefined ? null : String(glyf)); },
        getCodeByGlyf(glyf) { return this.getUnicodeByGlyf(glyf); },
        getGlyfByCode(u) { return this.getGlyfByUnicode(u); },
        isBlankUnicode(u) { return N.fontQuery(handle, 'blank', code(u)); },
        inLimit(u) { return N.fontQuery(handle, 'glyphId', code(u)) !== 0; },
        getCodes() { return N.fontQuery(handle, 'codes', 0); },
        toString() { return '[QueryTTF]'; }
    };
}

function strResponse(response) {
    return {
        body() { return response.body; },
        code() { return response.code; },
        message() { return response.message || ''; },
        headers() { return response.headers; },
        header(name) { return headerNamed(response.headers, name); },
        url() { return response.url; },
        raw() { return this; },
        isSuccessful() { return response.code >= 200 && response.code < 300; },
        toString() { return response.body; }
    };
}
// What java.get, java.post and java.head return (jsoup's Connection.Response).
function jsoupResponse(response) {
    return {
        body() { return response.body; },
        statusCode() { return response.code; },
        statusMessage() { return ''; },
        header(name) { return headerNamed(response.headers, name); },
        hasHeader(name) { return headerNamed(response.headers, name) !== null; },
        headers() { return response.headers; },
        // Read natively, by the Set-Cookie reader the cookie store uses; a Java Map to scripts (login scripts
        // turn it into a Cookie header from its `{a=1, b=2}` text, or iterate its entries).
        cookies() { return javaMap(Object.assign({}, response.cookies)); },
        cookie(name) {
            return Object.prototype.hasOwnProperty.call(response.cookies, String(name)) ? response.cookies[String(name)] : null;
        },
        url() { return response.url; },
        contentType() { return headerNamed(response.headers, 'content-type'); },
        parse() { return Jsoup.parse(response.body, response.url); },
        toString() { return response.body; }
    };
}
function failedResponse(url, error) {
    return strResponse({ url: String(url), code: 500, message: String(error && error.message || error), headers: {},
        body: String(error && error.message || error) });
}
function headersOf(value) {
    if (value === undefined || value === null) return {};
    if (typeof value === 'string') { try { return JSON.parse(value); } catch (e) { return {}; } }
    const out = {};
    for (const key of Object.keys(value)) out[key] = String(value[key]);
    return out;
}

// The Jsoup object model: nodes are native handles whose prototype is `element`; lists are `Elements`.
class Elements extends Array {
    text() { return this.map(e => e.text()).filter(t => t.length).join(' '); }
    eachText() { return Array.from(this, e => e.text()).filter(t => t.length); }
    attr(name) { for (const e of this) if (e.hasAttr(name)) return e.attr(name); return ''; }
    eachAttr(name) { return Array.from(this).filter(e => e.hasAttr(name)).map(e => e.attr(name)); }
    hasAttr(name) { return this.some(e => e.hasAttr(name)); }
    hasClass(name) { return this.some(e => e.hasClass(name)); }
    html() { return Array.from(this, e => e.html()).join('\n'); }
    outerHtml() { return Array.from(this, e => e.outerHtml()).join('\n'); }
    toString() { return this.outerHtml(); }
    select(css) {
        const out = new Elements();
        for (const e of this) out.push(...e.select(css));
        return out;
    }
    first() { return this.length ? this[0] : null; }
    last() { return this.length ? this[this.length - 1] : null; }
    eq(index) { return this[index] === undefined ? new Elements() : Elements.of(this[index]); }
    remove() { for (const e of this) e.remove(); return this; }
    // jsoup's Element methods on a one-element list (a list rule's single element given to @js:).
    ownText() { return this.length ? this[0].ownText() : ''; }
    tagName() { return this.length ? this[0].tagName() : ''; }
    id() { return this.length ? this[0].id() : ''; }
    children() { const out = new Elements(); for (const e of this) out.push(...e.children()); return out; }
    parent() { return this.length ? this[0].parent() : null; }
    parents() { const out = new Elements(); for (const e of this) { const p = e.parent(); if (p) out.push(p); } return out; }
    selectFirst(css) { for (const e of this) { const found = e.selectFirst(css); if (found) return found; } return null; }
    getElementsByTag(tag) { return this.select(String(tag)); }
    getElementsByClass(name) { return this.select('.' + String(name)); }
}
function elements(list) {
    const out = new Elements();
    for (const item of list) out.push(item);
    return out;
}
const element = {
    select(css) { return elements(N.select(this, String(css))); },
    selectFirst(css) { const found = N.select(this, String(css)); return found.length ? found[0] : null; },
    text() { return N.text(this); },
    ownText() { return N.ownText(this); },
    wholeText() { return N.text(this); },
    html() { return N.html(this); },
    outerHtml() { return N.outerHtml(this); },
    toString() { return N.outerHtml(this); },
    attr(name, value) { return N.attr(this, String(name)); },
    hasAttr(name) { return /^abs:/i.test(name) ? N.attr(this, String(name)) !== '' : N.hasAttr(this, String(name)); },
    absUrl(name) { return N.attr(this, 'abs:' + String(name)); },
    id() { return N.attr(this, 'id'); },
    className() { return N.attr(this, 'class'); },
    classNames() { return N.attr(this, 'class').split(/\s+/).filter(c => c.length); },
    hasClass(name) { return this.classNames().some(c => c.toLowerCase() === String(name).toLowerCase()); },
    val() { return N.attr(this, 'value'); },
    tagName() { return N.isDocument(this) ? '#root' : N.tagName(this); },
    nodeName() { return N.isDocument(this) ? '#document' : N.tagName(this); },
    children() { return elements(N.children(this)); },
    child(index) { return N.children(this)[index]; },
    childrenSize() { return N.children(this).length; },
    parent() { return N.parent(this); },
    remove() { N.remove(this); },
    getElementsByTag(tag) { return this.select(String(tag)); },
    getElementsByClass(name) { return this.select('.' + String(name)); },
    getElementById(id) { return this.selectFirst('#' + String(id)); },
    getElementsByAttribute(name) { return this.select('[' + String(name) + ']'); },
    body() { return this.selectFirst('body'); },
    head() { return this.selectFirst('head'); },
    title() { const t = this.selectFirst('title'); return t ? t.text() : ''; }
};
const Jsoup = {
    parse(html, baseUri) { return N.parse(str(html) || '', str(baseUri) || ''); },
    parseBodyFragment(html, baseUri) { return N.parse(str(html) || '', str(baseUri) || ''); }
};

// Chinese numerals for toNumChapter.
function chineseNumber(text) {
    if (/^\d+$/.test(text)) return parseInt(text, 10);
    const digits = { '零': 0, '〇': 0, '一': 1, '壹': 1, '二': 2, '两': 2, '贰': 2, '三': 3, '叁': 3, '四': 4, '肆': 4,
        '五': 5, '伍': 5, '六': 6, '陆': 6, '七': 7, '柒': 7, '八': 8, '捌': 8, '九': 9, '玖': 9 };
    const units = { '十': 10, '拾': 10, '百': 100, '佰': 100, '千': 1000, '仟': 1000 };
    let total = 0, section = 0, number = 0;
    for (const c of text) {
        if (c in digits) number = digits[c];
        else if (c in units) { section += (number || 1) * units[c]; number = 0; }
        else if (c === '万' || c === '萬') { total += (section + number) * 10000; section = 0; number = 0; }
        else if (c === '亿') { total += (section + number) * 100000000; section = 0; number = 0; }
        else return -1;
    }
    return total + section + number;
}
function toURL(url, base) {
    const href = base === undefined || base === null ? String(url) : N.resolveURL(String(url), String(base));
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:)\/\/([^/?#:]*)(?::(\d+))?([^?#]*)(\?[^#]*)?(#.*)?$/.exec(href);
    if (!m) throw new Error('not an absolute URL: ' + href);
    const searchParams = {};
    if (m[5]) for (const pair of m[5].slice(1).split('&')) {
        if (!pair) continue;
        const eq = pair.indexOf('=');
        const name = eq < 0 ? pair : pair.slice(0, eq);
        const value = eq < 0 ? '' : pair.slice(eq + 1);
        try { searchParams[decodeURIComponent(name)] = decodeURIComponent(value.replace(/\+/g, ' ')); }
        catch (e) { searchParams[name] = value; }
    }
    return { href: href, protocol: m[1], host: m[2] + (m[3] ? ':' + m[3] : ''), hostname: m[2], port: m[3] || '',
        origin: m[1] + '//' + m[2] + (m[3] ? ':' + m[3] : ''), pathname: m[4] || '/', search: m[5] || '',
        hash: m[6] || '', searchParams: searchParams, toString() { return href; } };
}
function uuid() {
    const hex = '0123456789abcdef';
    let out = '';
    for (let i = 0; i < 36; i++) {
        if (i === 8 || i === 13 || i === 18 || i === 23) out += '-';
        else if (i === 14) out += '4';
        else if (i === 19) out += hex[(Math.random() * 4 | 0) + 8];
        else out += hex[Math.random() * 16 | 0];
    }
    return out;
}
function cookieMap(text) {
    const map = {};
    for (const part of String(text || '').split(';')) {
        const eq = part.indexOf('=');
        if (eq > 0) map[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
    }
    return map;
}
function cookieText(map) {
    return Object.keys(map).map(k => k + '=' + map[k]).join('; ');
}

function symmetricCrypto(transformation, key, iv) {
    const keyBytes = bytesOf(key);
    const ivBytes = iv === undefined || iv === null || iv === '' ? [] : bytesOf(iv);
    const run = (encrypting, data) => N.cipher(String(transformation), keyBytes, ivBytes, encrypting, data);
    return {
        decrypt(data) { return run(false, cipherInput(data)); },
        decryptStr(data, charset) { return N.decode(run(false, cipherInput(data)), str(charset) || 'UTF-8'); },
        encrypt(data) { return run(true, bytesOf(data)); },
        encryptBase64(data) { return base64Of(run(true, bytesOf(data)), 2); },
        encryptHex(data) { return hexOf(run(true, bytesOf(data))); },
        setIv(newIv) { return symmetricCrypto(transformation, key, newIv); }
    };
}

// java: Legado's helpers (AnalyzeRule + JsExtensions).
const java = {
    getString(rule, content, isUrl) {
        return N.getString(String(rule), content === undefined ? null : content, isUrl === true);
    },
    getStringList(rule, content, isUrl) {
        return N.getStringList(String(rule), content === undefined ? null : content, isUrl === true);
    },
    getElements(rule, content) {
        const list = N.getElements(String(rule), content === undefined ? null : content);
        return list.every(item => typeof item === 'object' && item !== null && Object.getPrototypeOf(item) === element)
            ? elements(list) : list;
    },
    getElement(rule, content) { return this.getElements(rule, content); },
    setContent(content, baseUrl) { N.setContent(content === undefined ? null : content, str(baseUrl)); return this; },
    setBaseUrl(url) { N.setBaseUrl(String(url)); },
    setRedirectUrl(url) { N.setBaseUrl(String(url)); },
    get baseUrl() { return N.baseUrl(); },
    put(key, value) { N.put(String(key), value === undefined || value === null ? '' : String(value)); return value; },
    get(a, b) {
        if (arguments.length >= 2) return jsoupResponse(N.fetch('GET', String(a), headersOf(b), null));
        return N.get(String(a));
    },
    post(url, body, headers) {
        return jsoupResponse(N.fetch('POST', String(url), headersOf(headers), body === undefined ? null : String(body)));
    },
    head(url, headers) { return jsoupResponse(N.fetch('HEAD', String(url), headersOf(headers), null)); },
    ajax(url) {
        const spec = Array.isArray(url) ? url[0] : url;
        try { return N.fetch('spec', String(spec), null, null).body; } catch (e) { return String(e && e.message || e); }
    },
    ajaxAll(urls) { return Array.from(urls, url => this.connect(url)); },
    connect(url, headers) {
        try {
            if (headers === undefined || headers === null) return strResponse(N.fetch('spec', String(url), null, null));
            return strResponse(N.fetch('GET', String(url), headersOf(headers), null));
        } catch (e) { return failedResponse(url, e); }
    },
    log(message) { N.message(String(message), 'log'); return message; },
    logType(value) { N.message(value === null ? 'null' : typeof value, 'log'); },
    toast(message) { N.message(String(message), 'toast'); },
    longToast(message) { N.message(String(message), 'longToast'); },
    timeFormat(time) { const ms = Number(time); return formatDate(ms, 'yyyy/MM/dd HH:mm', localOffset(ms)); },
    timeFormatUTC(time, pattern, offset) { return formatDate(Number(time), String(pattern), Number(offset) || 0); },
    base64Decode(text, option) {
        if (text === undefined || text === null) return '';
        const bytes = N.base64Decode(String(text));
        return N.decode(bytes, typeof option === 'string' ? option : 'UTF-8');
    },
    base64DecodeToByteArray(text) {
        if (text === undefined || text === null || String(text).trim() === '') return null;
        return N.base64Decode(String(text));
    },
    base64Encode(text, flags) {
        if (text === undefined || text === null) return null;
        return base64Of(bytesOf(text), flags === undefined ? 2 : Number(flags));
    },
    base64EncodeToByteArray(text, flags) {
        return N.encode(base64Of(bytesOf(text), flags === undefined ? 2 : Number(flags)), 'UTF-8');
    },
    md5Encode(text) { return hexOf(N.digest('MD5', bytesOf(str(text) || ''))); },
    md5Encode16(text) { return hexOf(N.digest('MD5', bytesOf(str(text) || ''))).substring(8, 24); },
    digestHex(data, algorithm) { return hexOf(N.digest(String(algorithm), bytesOf(data))); },
    digestBase64Str(data, algorithm) { return base64Of(N.digest(String(algorithm), bytesOf(data)), 2); },
    HMacHex(data, algorithm, key) { return hexOf(N.hmac(String(algorithm), bytesOf(key), bytesOf(data))); },
    HMacBase64(data, algorithm, key) { return base64Of(N.hmac(String(algorithm), bytesOf(key), bytesOf(data)), 2); },
    encodeURI(text, charset) { return N.urlEncode(String(text), str(charset) || 'UTF-8'); },
    hexDecodeToString(hex) { return N.decode(bytesOfHex(hex), 'UTF-8'); },
    hexDecodeToByteArray(hex) { return bytesOfHex(hex); },
    hexEncodeToString(text) { return hexOf(bytesOf(text)); },
    strToBytes(text, charset) { return N.encode(String(text), str(charset) || 'UTF-8'); },
    bytesToStr(bytes, charset) { return N.decode(bytesOf(bytes), str(charset) || 'UTF-8'); },
    createSymmetricCrypto(transformation, key, iv) { return symmetricCrypto(transformation, key, iv); },
    aesBase64DecodeToString(data, key, transformation, iv) { return symmetricCrypto(transformation, key, iv).decryptStr(data); },
    aesDecodeToString(data, key, transformation, iv) { return symmetricCrypto(transformation, key, iv).decryptStr(data); },
    aesDecodeToByteArray(data, key, transformation, iv) { return symmetricCrypto(transformation, key, iv).decrypt(data); },
    aesBase64DecodeToByteArray(data, key, transformation, iv) { return symmetricCrypto(transformation, key, iv).decrypt(data); },
    aesEncodeToBase64String(data, key, transformation, iv) { return symmetricCrypto(transformation, key, iv).encryptBase64(data); },
    aesEncodeToBase64ByteArray(data, key, transformation, iv) {
        return N.encode(symmetricCrypto(transformation, key, iv).encryptBase64(data), 'UTF-8');
    },
    desDecodeToString(data, key, transformation, iv) { return symmetricCrypto(transformation, key, iv).decryptStr(data); },
    desBase64DecodeToString(data, key, transformation, iv) { return symmetricCrypto(transformation, key, iv).decryptStr(data); },
    desEncodeToBase64String(data, key, transformation, iv) { return symmetricCrypto(transformation, key, iv).encryptBase64(data); },
    tripleDESDecodeStr(data, key, mode, padding, iv) {
        return symmetricCrypto('DESede/' + mode + '/' + padding, key, iv).decryptStr(data);
    },
    tripleDESDecodeArgsBase64Str(data, key, mode, padding, iv) {
        return symmetricCrypto('DESede/' + mode + '/' + padding, N.base64Decode(String(key)), iv ? N.base64Decode(String(iv)) : null).decryptStr(data);
    },
    tripleDESEncodeBase64Str(data, key, mode, padding, iv) {
        return symmetricCrypto('DESede/' + mode + '/' + padding, key, iv).encryptBase64(data);
    },
    queryTTF(data, useCache) { return queryTTF(data); },
    queryBase64TTF(data) { return queryTTF(data); },
    replaceFont(text, errorTTF, correctTTF, filter) {
        if (text === null || text === undefined) return text;
        if (!errorTTF || !correctTTF) return String(text);
        return N.fontReplace(String(text), errorTTF.fontHandle, correctTTF.fontHandle, filter === true);
    },
    // Beyond Legado: the text as `font` shows it, by recognising its glyphs (docs/fonts.md).
    decodeFont(text, font) {
        if (text === null || text === undefined) return text;
        const handle = fontBytes(font);
        if (handle === null) return String(text);
        return N.fontDecode(String(text), handle);
    },
    t2s(text) { return N.chinese(String(text), 't2s'); },
    s2t(text) { return N.chinese(String(text), 's2t'); },
    htmlFormat(text) { return N.htmlFormat(String(text)); },
    randomUUID() { return uuid(); },
    androidId() { return hexOf(N.digest('MD5', bytesOf(N.sourceKey()))).substring(8, 24); },
    getWebViewUA() {
        return 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
    },
    toNumChapter(text) {
        if (text === undefined || text === null) return null;
        const s = String(text);
        const m = /(第)(.+?)(章)/.exec(s);
        if (!m) return s;
        const n = chineseNumber(m[2]);
        return n < 0 ? s : s.replace(m[0], m[1] + n + m[3]);
    },
    toURL(url, base) { return toURL(url, base); },
    getCookie(tag, key) {
        const all = N.cookie(String(tag));
        if (key === undefined || key === null) return all;
        const value = cookieMap(all)[String(key)];
        return value === undefined ? '' : value;
    },
    getVerificationCode: unavailable('java.getVerificationCode', PERSON),
    // Rendered by headless Chromium through the host: every request the page makes goes through the fetcher.
    webView(html, url, js) { return N.webView(str(html), str(url), str(js), null, null); },
    webViewGetSource(html, url, js, sourceRegex) { return N.webView(str(html), str(url), str(js), str(sourceRegex), null); },
    webViewGetOverrideUrl(html, url, js, overrideUrlRegex) {
        return N.webView(str(html), str(url), str(js), null, str(overrideUrlRegex));
    },
    // Verification pages, in the headless browser: its cookies are kept in the source's jar (Legado's
    // startBrowser opens a window and returns nothing; startBrowserAwait answers a StrResponse of code 200).
    startBrowser(url, title) { N.verify('java.startBrowser', String(url), str(title), false); },
    startBrowserAwait(url, title, refetchAfterSuccess) {
        const refetch = refetchAfterSuccess === undefined || refetchAfterSuccess === null
            || (String(refetchAfterSuccess) !== 'false' && Boolean(refetchAfterSuccess));
        return strResponse(N.verify('java.startBrowserAwait', String(url), str(title), refetch));
    },
    startBrowserDp: unavailable('java.startBrowserDp', BROWSER),
    showBrowser: unavailable('java.showBrowser', BROWSER),
    showReadingBrowser: unavailable('java.showReadingBrowser', BROWSER),
    importScript: refused('java.importScript', 'sources may not load code from files or URLs'),
    cacheFile: refused('java.cacheFile', FILES),
    downloadFile: refused('java.downloadFile', FILES),
    readFile: refused('java.readFile', FILES),
    readTxtFile: refused('java.readTxtFile', FILES),
    deleteFile: refused('java.deleteFile', FILES),
    getFile: refused('java.getFile', FILES),
    writeFile: refused('java.writeFile', FILES),
    unzipFile: refused('java.unzipFile', FILES),
    unArchiveFile: refused('java.unArchiveFile', FILES),
    getTxtInFolder: refused('java.getTxtInFolder', FILES),
    getZipStringContent: refused('java.getZipStringContent', FILES),
    getZipByteArrayContent: refused('java.getZipByteArrayContent', FILES),
    getRarStringContent: refused('java.getRarStringContent', FILES),
    getRarByteArrayContent: refused('java.getRarByteArrayContent', FILES),
    get7zStringContent: refused('java.get7zStringContent', FILES),
    get7zByteArrayContent: refused('java.get7zByteArrayContent', FILES)
};
for (const name of ['io', 'lang', 'net', 'util', 'nio', 'security', 'text', 'math']) {
    Object.defineProperty(java, name, { enumerable: false, get() {
        throw new Error('java.' + name + ' is refused: ' + JAVA + (name === 'io' || name === 'nio' ? '; ' + FILES : ''));
    } });
}
hide(java, 'getClass', refused('getClass', JAVA));

const source = {
    getKey() { return N.sourceKey(); },
    get key() { return N.sourceKey(); },
    get bookSourceUrl() { return N.sourceKey(); },
    get bookSourceName() { return N.sourceName(); },
    // Legado's BookSource.getTag() is its name (what toasts and logs are prefixed with).
    getTag() { return N.sourceName(); },
    getVariable() { const v = N.sourceVariable(); return v === null ? '' : v; },
    setVariable(value) { N.setSourceVariable(str(value)); },
    put(key, value) { N.cachePut('v_' + N.sourceKey() + '_' + key, String(value)); return value; },
    get(key) { const v = N.cacheGet('v_' + N.sourceKey() + '_' + key); return v === null ? '' : v; },
    // The login kept for the source (bookrule login): the form's values and the headers every request gets.
    getLoginInfo() { return N.loginValue('info'); },
    getLoginInfoMap() { return loginMap(N.loginValue('info')); },
    getLoginHeader() { return N.loginValue('header'); },
    getLoginHeaderMap() { return loginMap(N.loginValue('header')); },
    putLoginInfo(info) { N.setLoginValue('info', jsonText(info)); return true; },
    putLoginHeader(header) { N.setLoginValue('header', jsonText(header)); },
    removeLoginInfo() { N.setLoginValue('info', null); },
    removeLoginHeader() { N.setLoginValue('header', null); N.removeCookie(N.sourceKey()); },
    // Legado's BaseSource.login(): loginUrl's script, then its login() with `this` the global object.
    login() {
        const code = N.loginScript();
        if (code === null) { N.loginThroughURL(); return; }
        const run = new Function('java', 'source', 'cookie', 'cache', 'result',
            code + '\n;if (typeof login === "function") return login.apply(this);\n'
            + 'throw new Error("loginUrl defines no login() function");');
        return run.call(G, java, source, cookie, cache, loginMap(N.loginValue('info')));
    }
};
// A stored JSON object as a script reads it: its members, and what Legado's sources use of a Java Map.
function loginMap(text) {
    if (text === null || text === undefined) return null;
    let map;
    try { map = JSON.parse(text); } catch (e) { return null; }
    if (map === null || typeof map !== 'object' || Array.isArray(map)) return null;
    return javaMap(map);
}
// An object that also reads as a Java Map: get/containsKey/size/isEmpty, `{a=1, b=2}` as its text, and its
// entries when iterated (`Array.from(map, ([k, v]) => …)`).
function javaMap(map) {
    hide(map, 'get', function (name) { const v = this[String(name)]; return v === undefined ? null : v; });
    hide(map, 'containsKey', function (name) { return Object.prototype.hasOwnProperty.call(this, String(name)); });
    hide(map, 'size', function () { return Object.keys(this).length; });
    hide(map, 'isEmpty', function () { return Object.keys(this).length === 0; });
    hide(map, 'toString', function () { return '{' + Object.keys(this).map(k => k + '=' + this[k]).join(', ') + '}'; });
    hide(map, Symbol.iterator, function* () { for (const k of Object.keys(this)) yield [k, this[k]]; });
    return map;
}
function jsonText(value) {
    if (value !== null && typeof value === 'object') return JSON.stringify(value);
    return str(value);
}
const cookie = {
    getCookie(url) { return N.cookie(String(url)); },
    getKey(url, name) { const v = cookieMap(N.cookie(String(url)))[String(name)]; return v === undefined ? '' : v; },
    setCookie(url, value) { N.setCookie(String(url), str(value) || ''); },
    replaceCookie(url, value) {
        const merged = Object.assign(cookieMap(N.cookie(String(url))), cookieMap(value));
        N.setCookie(String(url), cookieText(merged));
    },
    removeCookie(url) { N.removeCookie(String(url)); },
    cookieToMap(text) { return cookieMap(text); },
    mapToCookie(map) { return cookieText(map || {}); }
};
const memory = new Map();
const cache = {
    get(key) { return N.cacheGet(String(key)); },
    put(key, value, seconds) {
        N.cachePut(String(key), typeof value === 'string' ? value : JSON.stringify(value),
            seconds === undefined || seconds === null ? null : Number(seconds));
    },
    getInt(key) { const v = parseInt(N.cacheGet(String(key)), 10); return isNaN(v) ? null : v; },
    getLong(key) { return this.getInt(key); },
    getDouble(key) { const v = parseFloat(N.cacheGet(String(key))); return isNaN(v) ? null : v; },
    getFloat(key) { return this.getDouble(key); },
    getFile(key) { return N.cacheGet('file_' + String(key)); },
    putFile(key, value, seconds) { N.cachePut('file_' + String(key), String(value), seconds === undefined ? null : Number(seconds)); },
    putMemory(key, value) { memory.set(String(key), value); },
    getFromMemory(key) { const v = memory.get(String(key)); return v === undefined ? null : v; },
    deleteMemory(key) { memory.delete(String(key)); },
    delete(key) { memory.delete(String(key)); N.cacheRemove(String(key)); N.cacheRemove('file_' + String(key)); }
};

function variables(object) {
    hide(object, 'getVariable', function (key) { return key === undefined ? '' : N.get(String(key)); });
    hide(object, 'putVariable', function (key, value) { N.put(String(key), str(value) || ''); });
    return object;
}
const bookMethods = {
    setReverseToc(flag) { N.message('book.setReverseToc(' + flag + ') is ignored: bookrule keeps the TOC order the rules give', 'log'); },
    setUseReplaceRule() {},
    putCustomVariable(value) { N.put('custom', str(value) || ''); },
    getCustomVariable() { return N.get('custom'); }
};

const globals = {
    java: java, source: source, cookie: cookie, cache: cache,
    Packages: javaPackage('Packages'), javax: javaPackage('javax'), com: javaPackage('com'), net: javaPackage('net'),
    edu: javaPackage('edu'), org: javaPackage('org', { jsoup: javaPackage('org.jsoup', { Jsoup: Jsoup }) }),
    JavaImporter: refused('JavaImporter', JAVA), importClass: refused('importClass', JAVA),
    importPackage: refused('importPackage', JAVA), getClass: refused('getClass', JAVA),
    require: refused('require', 'sources may not load modules'), load: refused('load', FILES),
    readFile: refused('readFile', FILES), readUrl: refused('readUrl', 'fetch through java.ajax instead'),
    print: function () { N.message(Array.from(arguments).join(' '), 'log'); }
};
for (const name of Object.keys(globals)) hide(G, name, globals[name]);

// Bindings. Each snippet gets them as parameters (see CompiledSnippet); they are also set as globals around
// a snippet that could read them so (`this.result`) or whose jsLib's functions do, and restored after (a
// nested snippet must not change its caller's).
const NAMES = ['result', 'src', 'baseUrl', 'key', 'page', 'book', 'chapter', 'title', 'nextChapterUrl'];
const saved = [];
function adorn(value) {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) {
        if (value.length && value.every(v => typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === element)) {
            return elements(value);
        }
        value.forEach((item, index) => { value[index] = adornObject(item); });
        return value;
    }
    return adornObject(value);
}
// A JSON object given as `result` also reads as its JSON text (Legado hands JSON answers over as text:
// `JSON.parse(result)` is the usual first line).
function adornObject(value) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.getPrototypeOf(value) !== element) {
        hide(value, 'toString', function () { return JSON.stringify(this); });
    }
    return value;
}
function prepareBook(value) { return variables(Object.assign(value, bookMethods)); }
function prepareChapter(value) { return variables(value); }
// Called with the prepared bindings in the order of NAMES.
function bind() {
    saved.push(NAMES.map(name => Object.getOwnPropertyDescriptor(G, name)));
    for (let index = 0; index < NAMES.length; index++) {
        const name = NAMES[index];
        const value = arguments[index] === undefined ? null : arguments[index];
        // A jsLib `var key` is a global that cannot be redefined: the binding is assigned to it instead.
        const existing = Object.getOwnPropertyDescriptor(G, name);
        if (existing && !existing.configurable) {
            if (existing.writable) G[name] = value;
            continue;
        }
        Object.defineProperty(G, name, { value: value, writable: true, configurable: true, enumerable: false });
    }
}
function unbind() {
    const descriptors = saved.pop();
    if (!descriptors) return;
    NAMES.forEach((name, index) => {
        const descriptor = descriptors[index];
        if (descriptor && !descriptor.configurable) {
            if (descriptor.writable) G[name] = descriptor.value;
        } else if (descriptor) {
            Object.defineProperty(G, name, descriptor);
        } else {
            delete G[name];
        }
    });
}
// Globals a snippet creates by assignment (`x = 1` without `var`) are removed after it, and the helpers it
// replaced through the global object (`this.java = …`) are put back, as each Legado evaluation has its own
// scope; jsLib's globals are kept.
let baseline = new Set();
let helpersAtSnapshot = [];
function snapshot() {
    baseline = new Set(Object.getOwnPropertyNames(G));
    helpersAtSnapshot = Object.keys(globals).map(name => [name, G[name]]);
}
function cleanup() {
    for (const name of Object.getOwnPropertyNames(G)) if (!baseline.has(name)) delete G[name];
    for (const [name, value] of helpersAtSnapshot) {
        if (G[name] === value) continue;
        try {
            if (Object.prototype.hasOwnProperty.call(G, name)) G[name] = value; else hide(G, name, value);
        } catch (e) { /* a jsLib constant under that name: nothing a snippet could change */ }
    }
}

return { bind, unbind, snapshot, cleanup, resetClock, installFixedClock, nodePrototype: element,
    prepareResult: adorn, prepareBook, prepareChapter, java, source, cookie, cache };
})
