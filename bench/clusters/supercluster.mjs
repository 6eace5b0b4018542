// supercluster (npm) on the same points as the Rust benchmark: index build time and
// getClusters time for the same viewports. Usage: node supercluster.mjs points.tsv "z:w,s,e,n"...
import { readFileSync } from 'node:fs';
import Supercluster from 'supercluster';

const [file, ...views] = process.argv.slice(2);
const features = readFileSync(file, 'utf8').trim().split('\n').map((line) => {
  const [lon, lat] = line.split('\t').map(Number);
  return { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [lon, lat] } };
});

function median(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }
function p99(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length * 0.99)]; }

const builds = [];
let index;
for (let i = 0; i < 3; i++) {
  const t = process.hrtime.bigint();
  index = new Supercluster({ radius: 40, extent: 512, maxZoom: 16 }).load(features);
  builds.push(Number(process.hrtime.bigint() - t) / 1e6);
}
console.log(`supercluster points ${features.length}`);
console.log(`supercluster build_ms ${median(builds).toFixed(1)} (runs: ${builds.map((b) => b.toFixed(0)).join(', ')})`);
for (const v of views) {
  const [z, box] = v.split(':');
  const bbox = box.split(',').map(Number);
  const zoom = Number(z);
  const n = index.getClusters(bbox, zoom).length;
  for (let i = 0; i < 200; i++) index.getClusters(bbox, zoom);
  const times = [];
  for (let i = 0; i < 2000; i++) {
    const t = process.hrtime.bigint();
    index.getClusters(bbox, zoom);
    times.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  console.log(`supercluster getClusters z${zoom} features ${n} p50_us ${median(times).toFixed(1)} p99_us ${p99(times).toFixed(1)}`);
}
