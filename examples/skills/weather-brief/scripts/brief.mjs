#!/usr/bin/env node
// Print a three-line brief from a forecast JSON file ({current: {temp, summary}, hourly: [{temp, rain}]}).
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  console.error("usage: brief.mjs FORECAST.json");
  process.exit(2);
}
const forecast = JSON.parse(readFileSync(file, "utf8"));
const hours = (forecast.hourly ?? []).slice(0, 6);
const temps = hours.map((h) => h.temp);
const rain = Math.max(0, ...hours.map((h) => h.rain ?? 0));
console.log(`Now: ${forecast.current.temp}°, ${forecast.current.summary}.`);
console.log(`Next hours: ${Math.min(...temps)}–${Math.max(...temps)}°, rain chance up to ${Math.round(rain * 100)}%.`);
console.log(`Advice: ${rain >= 0.5 ? "take an umbrella" : "no umbrella needed"}.`);
