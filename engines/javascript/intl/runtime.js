// The Intl namespace builder (docs/intl.md). engines/javascript/intl/build.mjs bundles this file into the `runtime`
// chunk; the driver (engines/javascript/driver.c, "Intl") evaluates that chunk the first time a program reads the
// global `Intl` or calls a locale method (Number/BigInt/Date.prototype.toLocale*String), and calls build(load):
//   load(name)  evaluates the chunk /stdlib/intl/<name>.qbc (QuickJS bytecode) and returns its completion value, or
//               undefined when there is no such chunk.
//   generation() the number of the current evaluation on this engine handle (a session counts its evaluations).
// build() installs the namespace as the global `Intl` and returns [namespace, locale methods] (the driver's native
// toLocale* stubs call the latter). Nothing else is loaded until it is used: each constructor family's code on first
// access to its name, each language's data when a constructor (or supportedLocalesOf) is asked for that language,
// the time zones when a DateTimeFormat names a zone other than UTC.

// The built-in locales are build.mjs's table (the `data-locales` chunk): per family, every tag with data, and the tag
// its chunk is a patch of. A requested tag loads the built-in tags it could resolve to: itself and its truncations,
// its likely-subtags form and that form's (zh-TW: zh-Hant-TW, zh-Hant, zh). Nothing else is loaded, so a program
// that asks for six tags pays for those six, whatever the number of built-in locales.
// ECMA-402 DefaultLocale: every constructor falls back to it when no requested locale is available.

const DEFAULT_LOCALE = "en-US";
const DELETED = "\u0000sw-intl-deleted"; // build.mjs: a key the regional variant lacks

// Namespace name -> the family chunk that defines it.
const NAMES = {
  getCanonicalLocales: "locale", Locale: "locale", supportedValuesOf: "locale",
  PluralRules: "pluralrules", NumberFormat: "numberformat", DateTimeFormat: "datetimeformat",
  RelativeTimeFormat: "relativetimeformat", ListFormat: "listformat", Segmenter: "segmenter",
  DisplayNames: "displaynames",
};
// Families whose constructors need locale data, and the names they define.
const WITH_DATA = {
  pluralrules: "PluralRules", numberformat: "NumberFormat", datetimeformat: "DateTimeFormat",
  relativetimeformat: "RelativeTimeFormat", listformat: "ListFormat", displaynames: "DisplayNames",
};
// The locale methods of the built-ins: [prototype, name, family].
const METHODS = [
  [Number.prototype, "toLocaleString", "numberformat"],
  [typeof BigInt === "function" ? BigInt.prototype : null, "toLocaleString", "numberformat"],
  [Date.prototype, "toLocaleString", "datetimeformat"],
  [Date.prototype, "toLocaleDateString", "datetimeformat"],
  [Date.prototype, "toLocaleTimeString", "datetimeformat"],
];

const defineValue = (o, k, value) =>
  Object.defineProperty(o, k, { value, writable: true, enumerable: false, configurable: true });

// A regional variant's data: its base language's data with the patch applied. Copies only the objects on a changed
// path; the rest is shared with the base (FormatJS does not modify locale data).
function merge(a, p) {
  const isObj = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
  if (!isObj(a) || !isObj(p)) return p;
  const o = Object.assign({}, a);
  for (const k of Object.keys(p)) {
    if (p[k] === DELETED) delete o[k];
    else o[k] = k in a ? merge(a[k], p[k]) : p[k];
  }
  return o;
}

// One zone of FormatJS's packed tz data, unpacked as its unpack() does for every zone.
function unpackZone(entry, abbrvs, offsets) {
  return entry.split("|").slice(1).map((z) => z.split(",")).map(([ts, abbrvIndex, offsetIndex, dst]) => [
    ts === "" ? -Infinity : parseInt(ts, 36), abbrvs[+abbrvIndex], offsets[+offsetIndex], dst === "1"]);
}

export function build(load, generation) {
  const ns = {};
  Object.defineProperty(ns, Symbol.toStringTag, { value: "Intl", configurable: true });
  // From here on the global `Intl` is this object (a data property), unless the program replaced the accessor first
  // (`Intl = x` before any use; a locale method then still builds the namespace, for itself). The polyfills never
  // read the global: each code chunk is a function of `Intl` (build.mjs), called with this object.
  const global = Object.getOwnPropertyDescriptor(globalThis, "Intl");
  if (!global || global.get) defineValue(globalThis, "Intl", ns);

  const raw = {};        // family -> the polyfill's own class (the namespace holds a wrapper)
  const wrapped = {};    // family -> that wrapper (the locale methods use it even if a program replaced Intl.X)
  const loaded = {};     // family -> true once its code ran
  const loading = {};    // family -> the evaluation (generation()) in which its code is running
  const dataLoaded = {}; // "family tag" -> true once registered
  const baseData = {};   // "family tag" -> a base language's data (the variants' patches apply to it)
  const impls = {};      // METHODS index -> the polyfill's own locale method
  let tzLoaded = false;
  let valuesLoaded;      // build.mjs's data-values: supportedValuesOf's answers
  const valuesChunk = () => (valuesLoaded ??= load("data-values"));
  let localesLoaded;     // build.mjs's data-locales: family -> "tag,tag:base,..."
  const tables = {};     // family -> Map(tag -> the tag its chunk patches, or "")
  function table(family) {
    if (tables[family] === undefined) {
      const m = new Map();
      for (const e of ((localesLoaded ??= load("data-locales"))[family] || "").split(",")) {
        const i = e.indexOf(":");
        if (e) m.set(i < 0 ? e : e.slice(0, i), i < 0 ? "" : e.slice(i + 1));
      }
      tables[family] = m;
    }
    return tables[family];
  }

  // A family's code runs against a scratch namespace whose prototype is ns: its reads of other constructors reach
  // ns, its definitions stay on the scratch object until the whole chunk ran. Only then are they wrapped and put on
  // ns. A load the fuel limit interrupts (uncatchable: no catch or finally runs) therefore leaves ns as it was, lazy,
  // and the next use loads the family again; `loading` holds the evaluation it started in, so a stale mark from an
  // interrupted evaluation does not count.
  function loadFamily(family) {
    if (loaded[family] || loading[family] === generation()) return; // re-entered by its own chunk: its names read undefined
    loading[family] = generation();
    try {
      const names = Object.keys(NAMES).filter((n) => NAMES[n] === family);
      const install = load(`code-${family}`);
      if (typeof install !== "function") throw new Error(`Intl: chunk code-${family} missing`);
      const scratch = Object.create(ns);
      install(scratch);
      const own = (k) => Object.prototype.hasOwnProperty.call(scratch, k);
      if (!names.every(own)) throw new Error(`Intl: chunk code-${family} did not define ${names.join(", ")}`);
      // The locale methods the polyfill defines (patched to define them on its namespace, not on the prototypes).
      const methods = {};
      METHODS.forEach((m, i) => {
        if (own(`__sw_method_${i}`)) methods[i] = scratch[`__sw_method_${i}`];
      });
      const values = {};
      for (const n of names) values[n] = scratch[n];
      const Name = WITH_DATA[family];
      if (Name) {
        const Class = values[Name];
        if (typeof Class.__defaultLocale === "string") Class.__defaultLocale = DEFAULT_LOCALE;
        if (family === "datetimeformat") Class.__defaultTimeZone = "UTC";
        raw[family] = Class;
        values[Name] = wrapped[family] = wrap(Class, family);
      }
      if (family === "segmenter") {
        // Its rules are CLDR's root rules for nearly every locale. It resolves against the built-in locales a program
        // asked for (ensure adds them, as NumberFormat's table has them), not against all of CLDR's at once: that
        // matching cost 5.3M fuel per new Intl.Segmenter.
        values.Segmenter.availableLocales = new Set();
        raw.segmenter = values.Segmenter;
        values.Segmenter = wrap(values.Segmenter, family);
      }
      if (family === "locale") {
        // The answers FormatJS would compute by probing every candidate, computed at build time (build.mjs); the
        // collation key still probes Intl.Collator, and an invalid key gets FormatJS's RangeError.
        const supportedValuesOf = values.supportedValuesOf;
        values.supportedValuesOf = {
          supportedValuesOf(key) {
            const k = `${key}`;
            const known = valuesChunk().supportedValuesOf;
            if (k !== "collation" && Object.prototype.hasOwnProperty.call(known, k)) return known[k].slice();
            return supportedValuesOf(k);
          },
        }.supportedValuesOf;
      }
      // Commit. Interrupted in the middle of this, some names are ns's and the rest still lazy: the next use of one of
      // those loads the family again and replaces them all.
      Object.assign(impls, methods);
      for (const n of names) {
        defineValue(ns, n, values[n]);
        delete scratch[n]; // the polyfill's own reads of Intl.X now reach ns's (wrapped) value
      }
      loaded[family] = true;
    } finally {
      loading[family] = undefined;
    }
  }

  // One built-in tag's data for one family: the tags it falls back to first (its truncations, which FormatJS's
  // registration would otherwise fill with this tag's data), then the tag its chunk patches, then the chunk.
  function loadTag(family, tag) {
    const key = `${family} ${tag}`;
    if (dataLoaded[key]) return;
    const t = table(family);
    const parts = tag.split("-");
    for (let n = 1; n < parts.length; n++) {
      const prefix = parts.slice(0, n).join("-");
      if (t.has(prefix)) loadTag(family, prefix);
    }
    const base = t.get(tag);
    if (base) loadTag(family, base);
    // Marked loaded only once registered: a load the fuel limit interrupted is done again by the next use.
    let chunk = load(`data-${family}-${tag}`);
    if (typeof chunk === "function") chunk = chunk(ns); // PluralRules: the locale-data file, registering itself
    if (chunk !== undefined && chunk !== null && typeof chunk === "object") {
      const data = chunk.base !== undefined ? merge(baseData[`${family} ${chunk.base}`], chunk.patch) : chunk.data;
      baseData[key] = data;
      raw[family].__addLocaleData({ locale: chunk.locale, data });
    }
    dataLoaded[key] = true;
  }

  // The built-in tags a requested tag may resolve to: the tag without extensions and its truncations, and the same
  // for its likely-subtags form (zh-TW: zh-Hant-TW; en-US stays en-US, en).
  function candidates(tag) {
    const parts = tag.split("-");
    const end = parts.findIndex((p, i) => i > 0 && p.length === 1); // extensions (-u-, -t-, -x-) do not pick data
    const forms = [parts.slice(0, end < 0 ? parts.length : end)];
    try {
      const max = new ns.Locale(forms[0].join("-")).maximize();
      forms.push([max.language, max.script, max.region].filter(Boolean));
      if (max.script && max.region) forms.push([max.language, max.region]);
    } catch {}
    const out = [];
    for (const f of forms) for (let n = f.length; n > 0; n--) out.push(f.slice(0, n).join("-"));
    const nearest = table("nearest"); // a tag not built in: the built-in regional tag nearest it (es-AR: es-419)
    for (const c of out.slice()) if (nearest.has(c)) out.push(nearest.get(c));
    return out;
  }

  // Loads the data a constructor may resolve to for `locales`: every built-in tag a requested tag may resolve to, and
  // the default locale's when some requested tag has none or none is given. Invalid locales load nothing: the
  // constructor then throws ECMA-402's error. Returns the canonical list (undefined for invalid locales): the caller
  // passes it on, so that a program's locales object is read once, as ECMA-402 reads it (Test262 counts the reads).
  function ensure(family, locales) {
    if (!raw[family]) return;
    let list;
    try {
      list = ns.getCanonicalLocales(locales);
    } catch {
      return;
    }
    // The Segmenter has one set of rules: its locales are NumberFormat's (every CLDR locale with data).
    const t = table(family === "segmenter" ? "numberformat" : family);
    let fallback = list.length === 0;
    for (const tag of list) {
      let any = false;
      for (const c of candidates(tag)) {
        if (t.has(c)) {
          any = true;
          if (family === "segmenter") raw.segmenter.availableLocales.add(c);
          else loadTag(family, c);
        }
      }
      if (!any) fallback = true;
    }
    if (fallback) {
      if (family === "segmenter") raw.segmenter.availableLocales.add("en").add("en-US");
      else loadTag(family, "en");
    }
    return list;
  }

  // Time zones: FormatJS's tz data as an object whose zones load and unpack on first read (FormatJS unpacks all).
  function ensureTimeZone(options) {
    if (tzLoaded || options === undefined || options === null) return;
    const tz = options.timeZone;
    if (tz === undefined || String(tz).toUpperCase() === "UTC") return;
    loadTimeZones();
  }
  function loadTimeZones() {
    if (tzLoaded) return;
    const packed = load("tz");
    const abbrvs = packed.abbrvs.split("|");
    const offsets = packed.offsets.split("|").map((n) => parseInt(n, 36));
    const zones = {};
    packed.names.forEach((name, i) => {
      Object.defineProperty(zones, name, {
        enumerable: true, configurable: true,
        get() {
          const value = unpackZone(load(`tz-${i}`), abbrvs, offsets);
          Object.defineProperty(zones, name, { value, enumerable: true, configurable: true, writable: true });
          return value;
        },
      });
    });
    raw.datetimeformat.tzData = zones;
    tzLoaded = true;
  }

  // The namespace's constructor: the polyfill's class behind a proxy that loads the data first. `prototype`,
  // statics and instanceof reach the class itself; prototype.constructor is the proxy.
  function wrap(Class, family) {
    const before = (args) => {
      const list = ensure(family, args[0]);
      if (list !== undefined && args[0] !== undefined) args = [list, ...args.slice(1)];
      if (family === "datetimeformat") ensureTimeZone(args[1]);
      return args;
    };
    const proxy = new Proxy(Class, {
      construct(target, args, newTarget) {
        return Reflect.construct(target, before(args), newTarget === proxy ? target : newTarget);
      },
      apply(target, thisArg, args) {
        return Reflect.apply(target, thisArg, before(args));
      },
    });
    const supportedLocalesOf = Class.supportedLocalesOf;
    if (typeof supportedLocalesOf === "function") {
      defineValue(Class, "supportedLocalesOf", {
        supportedLocalesOf(locales, options) {
          const list = ensure(family, locales);
          return Reflect.apply(supportedLocalesOf, Class, [locales === undefined ? locales : list ?? locales, options]);
        },
      }.supportedLocalesOf);
      Object.defineProperty(Class.supportedLocalesOf, "length", { value: 1, configurable: true });
    }
    try {
      defineValue(Class.prototype, "constructor", proxy);
    } catch {}
    return proxy;
  }

  function lazy(name) {
    Object.defineProperty(ns, name, {
      enumerable: false, configurable: true,
      get() {
        loadFamily(NAMES[name]);
        const d = Object.getOwnPropertyDescriptor(ns, name);
        return d && "value" in d ? d.value : undefined;
      },
      set(v) {
        defineValue(ns, name, v);
      },
    });
  }
  for (const name of Object.keys(NAMES)) lazy(name);

  // The built-ins' locale methods: load the family (its data through the wrapper) on first call. A call without
  // options and with at most one locale string reuses a formatter made for the same method and locale, as V8 does
  // (a new DateTimeFormat per call costs ~150,000 fuel; a format ~20,000). The options such a formatter gets are
  // ECMA-402's ToDateTimeOptions defaults for the method.
  const DEFAULTS = [
    null, null,
    { year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" },
    { year: "numeric", month: "numeric", day: "numeric" },
    { hour: "numeric", minute: "numeric", second: "numeric" },
  ];
  const cache = new Map();
  const getTime = Date.prototype.getTime, numberValue = Number.prototype.valueOf;
  const bigintValue = typeof BigInt === "function" ? BigInt.prototype.valueOf : undefined;
  const methods = METHODS.map(([proto, name, family], i) => {
    const fn = {
      [name](locales, options) {
        if (options === undefined && (locales === undefined || typeof locales === "string")) {
          // thisNumberValue / thisBigIntValue / thisTimeValue first (a TypeError for a receiver of another kind; an
          // invalid Date is "Invalid Date" whatever the locale), then the formatter.
          const x = Reflect.apply(family === "numberformat" ? (i === 0 ? numberValue : bigintValue) : getTime, this, []);
          if (family === "datetimeformat" && x !== x) return "Invalid Date";
          const key = `${i} ${locales}`;
          let f = cache.get(key);
          if (f === undefined) {
            loadFamily(family);
            f = family === "numberformat" ? new wrapped.numberformat(locales) : new wrapped.datetimeformat(locales, DEFAULTS[i]);
            cache.set(key, f);
          }
          return f.format(x);
        }
        loadFamily(family);
        const impl = impls[i];
        if (typeof impl !== "function") throw new TypeError(`${name} is not available`);
        const list = ensure(family, locales);
        if (family === "datetimeformat") ensureTimeZone(options);
        return Reflect.apply(impl, this, [locales === undefined ? locales : list ?? locales, options]);
      },
    }[name];
    Object.defineProperty(fn, "length", { value: 0, configurable: true });
    if (proto) defineValue(proto, name, fn);
    return fn;
  });
  return [ns, methods];
}
