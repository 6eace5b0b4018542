// Entry point for `node --test web/tests/` (node's default pattern picks up
// *.test.mjs files only). Each spec file can also be run alone:
//   node --test web/tests/admin.spec.mjs web/tests/map.spec.mjs
import './map.spec.mjs';
import './map-geo.spec.mjs';
import './map-identity.spec.mjs';
import './map-phone.spec.mjs';
import './map-targets.spec.mjs';
import './map-search.spec.mjs';
import './map-timeline.spec.mjs';
import './map-card.spec.mjs';
import './map-density.spec.mjs';
import './map-families.spec.mjs';
import './map-flows.spec.mjs';
import './map-embed.spec.mjs';
import './map-open-web.spec.mjs';
import './pages.spec.mjs';
import './page-complete.spec.mjs';
import './admin.spec.mjs';
import './admin-operator.spec.mjs';
import './issue29-map.spec.mjs';
import './issue29-admin.spec.mjs';
import './mock-contract.spec.mjs';
