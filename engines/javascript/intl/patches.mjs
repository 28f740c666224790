// Build-time patches to the FormatJS polyfills (applied to the bundler's input, never committed as third-party
// source): each [old, new] must match exactly once, as scripts/engines/javascript.sh's QuickJS patches do.
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
	let ranges;
	const computeRanges = () => {
		if (ranges) return ranges;
		const r = { rangePatterns: Object.create(null), rangePatterns12: Object.create(null) };
		if (typeof rangePatterns === "function") rangePatterns = rangePatterns();
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
		if (intervalFormatFallback) {
			const patternParts = splitFallbackRangePattern(intervalFormatFallback);
			r.rangePatterns.default = { patternParts };
			r.rangePatterns12.default = { patternParts };
		}
		const yearFields = ["{relatedYear}", "{yearName}"].filter((field) => result.pattern.includes(field));
		if (yearFields.length) for (const patterns of [r.rangePatterns, r.rangePatterns12]) for (const field of Object.keys(patterns)) {
			if (field === "default") continue;
			const range = patterns[field].patternParts.map((part) => part.pattern).join("");
			if (yearFields.some((yearField) => !range.includes(yearField))) delete patterns[field];
		}
		return ranges = r;
	};
	for (const name of ["rangePatterns", "rangePatterns12"]) Object.defineProperty(result, name, {
		enumerable: true,
		configurable: true,
		get() {
			return computeRanges()[name];
		},
		set(value) {
			Object.defineProperty(result, name, { value, enumerable: true, configurable: true, writable: true });
		}
	});
	replaceDateTimeTokens(skeleton, result);
	let patterns;
	const computePatterns = () => {
		if (patterns) return patterns;
		const fields = Object.create(null);
		patterns = processDateTimePattern(rawPattern, fields);
		if (!patternFields.has(result)) patternFields.set(result, fields);
		return patterns;
	};
	for (const [name, i] of [["pattern", 0], ["pattern12", 1]]) Object.defineProperty(result, name, {
		enumerable: true,
		configurable: true,
		get() {
			return computePatterns()[i];
		},
		set(value) {
			Object.defineProperty(result, name, { value, enumerable: true, configurable: true, writable: true });
		}
	});
	return result;`],
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
    // ECMA-402's DefaultLocale is the same for every constructor: en-US (FormatJS's Segmenter falls back to "en").
    ['const r = ResolveLocale(Segmenter.availableLocales, requestedLocales, opt, [], {}, () => "en");',
     'const r = ResolveLocale(Segmenter.availableLocales, requestedLocales, opt, [], {}, () => "en-US");'],
  ],
};
