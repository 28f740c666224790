// Build-time patches to the FormatJS polyfills (applied to the bundler's input, never committed as third-party
// source): each [old, new] must match exactly once, as apply_patches requires of QuickJS's patch files.
import fs from "node:fs";
import vm from "node:vm";

// The Segmenter's CLDR rule data (intl-segmenter's SegmentationRules), rewritten at build time: every \uXXXX escape of
// a non-ASCII, non-surrogate, non-line-terminator code unit in a rule or variable becomes the character itself. The
// regexes mean the same, and their patterns are ~4x shorter (compiling costs 16 fuel per pattern code unit: the word
// rules were 169K code units). Also the names of the variables with an anchor (^ or $ outside a class) in them.
const SEGMENTER_FILE = new URL("../../../node_modules/@formatjs/intl-segmenter/polyfill-force.js", import.meta.url);
function segmenterRules() {
  const src = fs.readFileSync(SEGMENTER_FILE, "utf8");
  const start = src.indexOf("const SegmentationRules = {");
  const end = src.indexOf("\n//#endregion", start);
  if (start < 0 || end < 0 || src.indexOf("const SegmentationRules = {", start + 1) >= 0) {
    throw new Error("patch failed: @formatjs/intl-segmenter: SegmentationRules not found once");
  }
  const region = src.slice(start, end);
  const rules = vm.runInNewContext(`${region.replace("const SegmentationRules =", "SegmentationRules =")}\nSegmentationRules`, {});
  const literal = (p) => p.replace(/\\(u[0-9A-Fa-f]{4}|[\s\S])/g, (m, e) => {
    if (e.length !== 5) return m;
    const c = parseInt(e.slice(1), 16);
    return c < 0x80 || (c >= 0xd800 && c <= 0xdfff) || c === 0x2028 || c === 0x2029 ? m : String.fromCharCode(c);
  });
  const anchored = new Set();
  for (const granularities of Object.values(rules)) {
    for (const t of Object.values(granularities)) {
      for (const [k, v] of Object.entries(t.variables || {})) {
        if (/[$^]/.test(v.replace(/\\[\s\S]/g, "").replace(/\[[^\]]*\]/g, ""))) anchored.add(k);
        t.variables[k] = literal(v);
      }
      for (const r of Object.values(t.segmentRules || {})) {
        for (const side of ["before", "after"]) if (typeof r[side] === "string") r[side] = literal(r[side]);
      }
    }
  }
  return { region, replacement: `const SegmentationRules = ${JSON.stringify(rules)};`, anchored: [...anchored] };
}
const SEGMENTER_RULES = segmenterRules();

// The Segmenter's rules compiled for testing in place (see the intl-segmenter patches): no template literals here.
const SEGMENTER_HELPERS = String.raw`const swAnchoredVars = new Set(${JSON.stringify(SEGMENTER_RULES.anchored)});
const swAnchored = (rule, after) => (after ? /[$^]/ : /[$]/).test(rule.replace(/\$[A-Za-z0-9_]+/g, (m) => (swAnchoredVars.has(m) ? "$" : "")).replace(/\\[\s\S]/g, "").replace(/\[[^\]]*\]/g, ""));
const swRulesCache = new Map();
// A rule's regex is compiled when a boundary test first reaches it (compiling costs by the pattern's length).
const swRule = (rule, variables, after) => ({ get regex() {
	const inPlace = !swAnchored(rule, after);
	const source = replaceVariables(variables, rule);
	const regex = inPlace ? new RegExp(after ? source : "(?<=" + source + ")", "y") : generateRuleRegex(rule, variables, after);
	Object.defineProperty(this, "inPlace", { value: inPlace });
	Object.defineProperty(this, "regex", { value: regex });
	return regex;
} });
const swPrepareRules = (segmentationTypeValue) => {
	const preparedRules = {};
	for (const ruleNr of Object.keys(segmentationTypeValue.segmentRules)) {
		const ruleValue = segmentationTypeValue.segmentRules[ruleNr];
		const preparedRule = { breaks: ruleValue.breaks };
		if ("before" in ruleValue && ruleValue.before) preparedRule.before = swRule(ruleValue.before, segmentationTypeValue.variables, false);
		if ("after" in ruleValue && ruleValue.after) preparedRule.after = swRule(ruleValue.after, segmentationTypeValue.variables, true);
		preparedRules[ruleNr] = preparedRule;
	}
	return preparedRules;
};
const swSuppressionTable = (suppressions) => {
	const byLast = new Map();
	for (const s of suppressions || []) {
		const k = s.length ? s.charCodeAt(s.length - 1) : -1;
		if (!byLast.has(k)) byLast.set(k, []);
		byLast.get(k).push(s);
	}
	return byLast;
};
const swWhite = /\s/;
`;

export const PATCHES = {
  "intl-datetimeformat": [
    // The first DateTimeFormat of a locale parsed every skeleton of the locale (~250) together with all of its range
    // (interval) patterns and its pattern; the range patterns are ~60% of that work (measured in Node with
    // --cpu-prof) and only formatRange reads them, and the matcher reads a format's fields, not its pattern. Both are
    // computed on first read instead, for the one format a DateTimeFormat picked.
    [`	const result = Object.assign(Object.create(null), {
		pattern: "",
		pattern12: "",
		skeleton,
		rawPattern,
		rangePatterns: Object.create(null),
		rangePatterns12: Object.create(null)
	});
	if (rangePatterns) for (const k in rangePatterns) {
		const key = skeletonTokenToTable2(k);
		const rawPattern = rangePatterns[k];
		const intervalResult = Object.assign(Object.create(null), { patternParts: [] });
		const [pattern, pattern12] = processDateTimePattern(rawPattern, intervalResult);
		result.rangePatterns[key] = {
			...intervalResult,
			patternParts: splitRangePattern(pattern)
		};
		result.rangePatterns12[key] = {
			...intervalResult,
			patternParts: splitRangePattern(pattern12)
		};
	}
	if (intervalFormatFallback) {
		const patternParts = splitFallbackRangePattern(intervalFormatFallback);
		result.rangePatterns.default = { patternParts };
		result.rangePatterns12.default = { patternParts };
	}
	replaceDateTimeTokens(skeleton, result);
	const fields = Object.create(null);
	const [pattern, pattern12] = processDateTimePattern(rawPattern, fields);
	patternFields.set(result, fields);
	result.pattern = pattern;
	result.pattern12 = pattern12;
	const yearFields = ["{relatedYear}", "{yearName}"].filter((field) => pattern.includes(field));
	if (yearFields.length) for (const patterns of [result.rangePatterns, result.rangePatterns12]) for (const field of Object.keys(patterns)) {
		if (field === "default") continue;
		const range = patterns[field].patternParts.map((part) => part.pattern).join("");
		if (yearFields.some((yearField) => !range.includes(yearField))) delete patterns[field];
	}
	return result;`, `	const result = Object.assign(Object.create(null), {
		pattern: "",
		pattern12: "",
		skeleton,
		rawPattern
	});
	// The four lazy properties share one set of accessors (swLazyDescriptors); each result's inputs and computed values
	// are in swLazyState. Per-result closures and descriptors were most of a first DateTimeFormat's ~250 parses.
	swLazyState.set(result, { rawPattern, rangePatterns, intervalFormatFallback, ranges: undefined, patterns: undefined });
	Object.defineProperties(result, swLazyDescriptors.ranges);
	replaceDateTimeTokens(skeleton, result);
	Object.defineProperties(result, swLazyDescriptors.patterns);
	return result;`],
    // The shared accessors of parseDateTimeSkeleton's lazy properties (above), defined before it.
    ["function parseDateTimeSkeleton(skeleton, rawPattern = skeleton, rangePatterns, intervalFormatFallback) {", `const swLazyState = new WeakMap();
function swComputeRanges(result) {
	const st = swLazyState.get(result);
	if (st.ranges) return st.ranges;
	const r = { rangePatterns: Object.create(null), rangePatterns12: Object.create(null) };
	let rangePatterns = st.rangePatterns;
	if (typeof rangePatterns === "function") rangePatterns = st.rangePatterns = rangePatterns();
	if (rangePatterns) for (const k in rangePatterns) {
		const key = skeletonTokenToTable2(k);
		const rawPattern = rangePatterns[k];
		const intervalResult = Object.assign(Object.create(null), { patternParts: [] });
		const [pattern, pattern12] = processDateTimePattern(rawPattern, intervalResult);
		r.rangePatterns[key] = {
			...intervalResult,
			patternParts: splitRangePattern(pattern)
		};
		r.rangePatterns12[key] = {
			...intervalResult,
			patternParts: splitRangePattern(pattern12)
		};
	}
	if (st.intervalFormatFallback) {
		const patternParts = splitFallbackRangePattern(st.intervalFormatFallback);
		r.rangePatterns.default = { patternParts };
		r.rangePatterns12.default = { patternParts };
	}
	const yearFields = ["{relatedYear}", "{yearName}"].filter((field) => result.pattern.includes(field));
	if (yearFields.length) for (const patterns of [r.rangePatterns, r.rangePatterns12]) for (const field of Object.keys(patterns)) {
		if (field === "default") continue;
		const range = patterns[field].patternParts.map((part) => part.pattern).join("");
		if (yearFields.some((yearField) => !range.includes(yearField))) delete patterns[field];
	}
	return st.ranges = r;
}
function swComputePatterns(result) {
	const st = swLazyState.get(result);
	if (st.patterns) return st.patterns;
	const fields = Object.create(null);
	st.patterns = processDateTimePattern(st.rawPattern, fields);
	if (!patternFields.has(result)) patternFields.set(result, fields);
	return st.patterns;
}
const swLazy = (name, get) => ({
	enumerable: true,
	configurable: true,
	get() {
		return get(this);
	},
	set(value) {
		Object.defineProperty(this, name, { value, enumerable: true, configurable: true, writable: true });
	}
});
const swLazyDescriptors = {
	ranges: {
		rangePatterns: swLazy("rangePatterns", (r) => swComputeRanges(r).rangePatterns),
		rangePatterns12: swLazy("rangePatterns12", (r) => swComputeRanges(r).rangePatterns12)
	},
	patterns: {
		pattern: swLazy("pattern", (r) => swComputePatterns(r)[0]),
		pattern12: swLazy("pattern12", (r) => swComputePatterns(r)[1])
	}
};
function parseDateTimeSkeleton(skeleton, rawPattern = skeleton, rangePatterns, intervalFormatFallback) {`],
    // ... and so is the search for each skeleton's interval formats (the callers pass it as a function).
    ["const parseStyle = (pattern) => parseDateTimeSkeleton(pattern, pattern, findIntervalFormat(pattern, intervalFormats), intervalFormats.intervalFormatFallback);",
     "const parseStyle = (pattern) => parseDateTimeSkeleton(pattern, pattern, () => findIntervalFormat(pattern, intervalFormats), intervalFormats.intervalFormatFallback);"],
    ["parseDateTimeSkeleton(skeleton, formats[calendar][skeleton], calendarIntervals[skeleton] || findIntervalFormat(skeleton, calendarIntervals), calendarIntervals.intervalFormatFallback)",
     "parseDateTimeSkeleton(skeleton, formats[calendar][skeleton], () => calendarIntervals[skeleton] || findIntervalFormat(skeleton, calendarIntervals), calendarIntervals.intervalFormatFallback)"],
    ['defineProperty(Date.prototype, "toLocaleString", {', 'defineProperty(ensureIntl(), "__sw_method_2", {'],
    ['defineProperty(Date.prototype, "toLocaleDateString", {', 'defineProperty(ensureIntl(), "__sw_method_3", {'],
    ['defineProperty(Date.prototype, "toLocaleTimeString", {', 'defineProperty(ensureIntl(), "__sw_method_4", {'],
    // Date.prototype.toLocale*String answered "Invalid Date" for every error (a bad time zone, bad options) and for
    // a receiver that is not a Date. ECMA-402: TypeError for a non-Date, "Invalid Date" only for a NaN time value,
    // the DateTimeFormat's own errors otherwise.
    ...["toLocaleString", "toLocaleDateString", "toLocaleTimeString"].map((name) => [`	try {
		return ${name}(this, locales, options);
	} catch {
		return "Invalid Date";
	}`, `	const t = Date.prototype.getTime.call(this);
	if (t !== t) return "Invalid Date";
	return ${name}(t, locales, options);`]),
  ],
  // The locale methods go on the namespace the chunk is given, as __sw_method_<n> (runtime.js's METHODS order), not on
  // the prototypes: runtime.js puts its own methods (which load the locale data first) there once, and a load the
  // fuel limit interrupts leaves the prototypes as they were.
  "intl-numberformat": [
    ['defineProperty(Number.prototype, "toLocaleString", {', 'defineProperty(ensureIntl(), "__sw_method_0", {'],
    ['defineProperty(BigInt.prototype, "toLocaleString", {', 'defineProperty(ensureIntl(), "__sw_method_1", {'],
  ],
  "intl-segmenter": [
    [SEGMENTER_RULES.region, SEGMENTER_RULES.replacement],
    // Each boundary test ran every rule's "before" regex (X$) on input.substring(0, position) and its "after" regex
    // (^Y) on input.substring(position): two copies of the input and an unanchored scan of the whole prefix per rule
    // per position, O(n^2) per segment() (5.7M fuel for "Hello, world!"). The rules are now compiled once per locale
    // and granularity (not per instance), and tested in place: X as a lookbehind (?<=X) and Y as a sticky regex, both
    // at lastIndex = position, which reads only the characters the rule needs. A rule whose expanded source has an
    // anchor that means something else in place (^ or $ outside a class) keeps the substring test.
    [`const prepareLocaleSegmentationRules = (segmentationTypeValue) => {
	const preparedRules = {};`, ``+SEGMENTER_HELPERS+`const prepareLocaleSegmentationRules = (segmentationTypeValue) => {
	const preparedRules = {};`],
    [`		this.rules = prepareLocaleSegmentationRules(this.mergedSegmentationTypeValue);
		this.ruleSortedKeys = Object.keys(this.rules).sort((a, b) => Number(a) - Number(b));
	}`, `		const swKey = granularity + "|" + (r.locale.length ? (SegmentationRules[r.locale] ? r.locale : SegmentationRules[r.locale.split("-")[0]] ? r.locale.split("-")[0] : "") : "");
		let swCached = swRulesCache.get(swKey);
		if (!swCached) {
			const rules = swPrepareRules(this.mergedSegmentationTypeValue);
			swCached = { rules, ruleSortedKeys: Object.keys(rules).sort((a, b) => Number(a) - Number(b)), suppressions: swSuppressionTable(this.mergedSegmentationTypeValue.suppressions) };
			swRulesCache.set(swKey, swCached);
		}
		this.rules = swCached.rules;
		this.ruleSortedKeys = swCached.ruleSortedKeys;
		this.swSuppressions = swCached.suppressions;
	}`],
    [`		const stringBeforeBreak = input.substring(0, position);
		const stringAfterBreak = input.substring(position);
		if ("suppressions" in mergedSegmentationTypeValue) {
			for (const suppressions of mergedSegmentationTypeValue.suppressions) if (stringBeforeBreak.trim().endsWith(suppressions)) return breaksAtResult(false, "0.4");
		}
		for (const ruleKey of ruleSortedKeys) {
			const { before, after, breaks } = rules[ruleKey];
			if (before) {
				if (!before.test(stringBeforeBreak)) continue;
			}
			if (after) {
				if (!after.test(stringAfterBreak)) continue;
			}
			return breaksAtResult(breaks, ruleKey);
		}`, `		if ("suppressions" in mergedSegmentationTypeValue && this.swSuppressions.size) {
			// stringBeforeBreak.trim().endsWith(s), without the copy: the trimmed prefix is input[start, end).
			let end = position;
			while (end > 0 && swWhite.test(input[end - 1])) end--;
			let start = 0;
			while (start < end && swWhite.test(input[start])) start++;
			const candidates = end > start ? this.swSuppressions.get(input.charCodeAt(end - 1)) : undefined;
			if (candidates) {
				for (const s of candidates) if (end - start >= s.length && input.startsWith(s, end - s.length)) return breaksAtResult(false, "0.4");
			}
			const empty = this.swSuppressions.get(-1);
			if (empty) return breaksAtResult(false, "0.4");
		}
		let stringBeforeBreak, stringAfterBreak;
		for (const ruleKey of ruleSortedKeys) {
			const { before, after, breaks } = rules[ruleKey];
			if (before) {
				const regex = before.regex;
				if (before.inPlace) {
					regex.lastIndex = position;
					if (!regex.test(input)) continue;
				} else if (!regex.test(stringBeforeBreak ??= input.substring(0, position))) continue;
			}
			if (after) {
				const regex = after.regex;
				if (after.inPlace) {
					regex.lastIndex = position;
					if (!regex.test(input)) continue;
				} else if (!regex.test(stringAfterBreak ??= input.substring(position))) continue;
			}
			return breaksAtResult(breaks, ruleKey);
		}`],
    // ECMA-402's DefaultLocale is the same for every constructor: en-US (FormatJS's Segmenter falls back to "en").
    ['const r = ResolveLocale(Segmenter.availableLocales, requestedLocales, opt, [], {}, () => "en");',
     'const r = ResolveLocale(Segmenter.availableLocales, requestedLocales, opt, [], {}, () => "en-US");'],
  ],
};
