// Country names in the page's language, in one place. The catalogue keeps the upstream's
// English names and ISO codes (the API, the URL and the filters send those); the outline
// map's names are Natural Earth's English ones. In English a code becomes the catalogue's
// name and a name is shown as written; in French the tables below translate them. (These
// names are data, not the page's sentences: they stay here rather than in the catalogue.)
import { lang } from './i18n.js';

/** Case and accents folded ("Norvège" → "norvege"). */
const fold = (s) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

// The countries the catalogue keeps (crates/location/data/countries.csv, `european`), then
// those of the demo's non-European bands: [ISO 3166-1 alpha-2, catalogue name, French].
const CATALOGUE = [
  ['AX', 'Åland Islands', 'Åland'], ['AL', 'Albania', 'Albanie'], ['AD', 'Andorra', 'Andorre'],
  ['AT', 'Austria', 'Autriche'], ['BY', 'Belarus', 'Biélorussie'], ['BE', 'Belgium', 'Belgique'],
  ['BA', 'Bosnia and Herzegovina', 'Bosnie-Herzégovine'], ['BG', 'Bulgaria', 'Bulgarie'],
  ['HR', 'Croatia', 'Croatie'], ['CY', 'Cyprus', 'Chypre'], ['CZ', 'Czechia', 'Tchéquie'],
  ['DK', 'Denmark', 'Danemark'], ['EE', 'Estonia', 'Estonie'], ['FO', 'Faroe Islands', 'Îles Féroé'],
  ['FI', 'Finland', 'Finlande'], ['FR', 'France', 'France'], ['DE', 'Germany', 'Allemagne'],
  ['GG', 'Guernsey', 'Guernesey'], ['HU', 'Hungary', 'Hongrie'], ['IS', 'Iceland', 'Islande'],
  ['IE', 'Ireland', 'Irlande'], ['IM', 'Isle of Man', 'Île de Man'], ['IT', 'Italy', 'Italie'],
  ['JE', 'Jersey', 'Jersey'], ['LV', 'Latvia', 'Lettonie'], ['LI', 'Liechtenstein', 'Liechtenstein'],
  ['LT', 'Lithuania', 'Lituanie'], ['LU', 'Luxembourg', 'Luxembourg'], ['MT', 'Malta', 'Malte'],
  ['MD', 'Moldova', 'Moldavie'], ['MC', 'Monaco', 'Monaco'], ['ME', 'Montenegro', 'Monténégro'],
  ['GI', 'Gibraltar', 'Gibraltar'], ['GR', 'Greece', 'Grèce'], ['NL', 'Netherlands', 'Pays-Bas'],
  ['MK', 'North Macedonia', 'Macédoine du Nord'], ['NO', 'Norway', 'Norvège'], ['PL', 'Poland', 'Pologne'],
  ['PT', 'Portugal', 'Portugal'], ['RO', 'Romania', 'Roumanie'], ['RU', 'Russia', 'Russie'],
  ['SM', 'San Marino', 'Saint-Marin'], ['RS', 'Serbia', 'Serbie'], ['SK', 'Slovakia', 'Slovaquie'],
  ['SI', 'Slovenia', 'Slovénie'], ['ES', 'Spain', 'Espagne'], ['SJ', 'Svalbard', 'Svalbard'],
  ['SE', 'Sweden', 'Suède'], ['CH', 'Switzerland', 'Suisse'], ['UA', 'Ukraine', 'Ukraine'],
  ['GB', 'United Kingdom', 'Royaume-Uni'], ['TR', 'Türkiye', 'Turquie'], ['GE', 'Georgia', 'Géorgie'],
  ['AM', 'Armenia', 'Arménie'], ['AZ', 'Azerbaijan', 'Azerbaïdjan'], ['XK', 'Kosovo', 'Kosovo'],
  ['VA', 'Vatican City', 'Vatican'],
  ['US', 'United States', 'États-Unis'], ['BR', 'Brazil', 'Brésil'], ['JP', 'Japan', 'Japon'],
  ['CA', 'Canada', 'Canada'],
];

// Natural Earth's outline names that differ from the catalogue's, and the large countries
// outside the catalogue whose names the world view shows.
const OUTLINE = {
  'Bosnia and Herz.': 'Bosnie-Herzégovine', Macedonia: 'Macédoine du Nord', Turkey: 'Turquie',
  'United States of America': 'États-Unis', 'N. Cyprus': 'Chypre du Nord', Greenland: 'Groenland',
  China: 'Chine', India: 'Inde', Australia: 'Australie', Kazakhstan: 'Kazakhstan', Mexico: 'Mexique',
  Argentina: 'Argentine', Algeria: 'Algérie', Libya: 'Libye', Egypt: 'Égypte',
  'Saudi Arabia': 'Arabie saoudite', Iran: 'Iran', Iraq: 'Irak', Syria: 'Syrie', Jordan: 'Jordanie',
  Israel: 'Israël', Lebanon: 'Liban', Mongolia: 'Mongolie', Morocco: 'Maroc', Tunisia: 'Tunisie',
  'W. Sahara': 'Sahara occidental', Mauritania: 'Mauritanie', Mali: 'Mali', Niger: 'Niger',
  Chad: 'Tchad', Sudan: 'Soudan', Ethiopia: 'Éthiopie', Uzbekistan: 'Ouzbékistan',
  Turkmenistan: 'Turkménistan', Afghanistan: 'Afghanistan', Pakistan: 'Pakistan',
  'Dem. Rep. Congo': 'Rép. dém. du Congo', 'South Africa': 'Afrique du Sud', Nigeria: 'Nigeria',
  Peru: 'Pérou', Colombia: 'Colombie', Chile: 'Chili', Bolivia: 'Bolivie', Indonesia: 'Indonésie',
  Kyrgyzstan: 'Kirghizistan', Tajikistan: 'Tadjikistan', Yemen: 'Yémen', Oman: 'Oman',
  Angola: 'Angola', Namibia: 'Namibie', Somalia: 'Somalie', Kenya: 'Kenya', Tanzania: 'Tanzanie',
  Venezuela: 'Venezuela', Thailand: 'Thaïlande', Myanmar: 'Birmanie', Vietnam: 'Viêt Nam',
  'North Korea': 'Corée du Nord', 'South Korea': 'Corée du Sud', 'New Zealand': 'Nouvelle-Zélande',
  'Papua New Guinea': 'Papouasie-Nouvelle-Guinée', Madagascar: 'Madagascar', Zambia: 'Zambie',
  Mozambique: 'Mozambique', Botswana: 'Botswana', Zimbabwe: 'Zimbabwe', Cameroon: 'Cameroun',
  'Central African Rep.': 'Centrafrique', 'S. Sudan': 'Soudan du Sud', Philippines: 'Philippines',
  Malaysia: 'Malaisie', Cuba: 'Cuba', Ecuador: 'Équateur', Paraguay: 'Paraguay', Uruguay: 'Uruguay',
};

const FRENCH = lang === 'fr';
const BY_CODE = new Map(CATALOGUE.map(([code, en, fr]) => [code, FRENCH ? fr : en]));
const BY_NAME = new Map(FRENCH ? CATALOGUE.map(([, en, fr]) => [en, fr]) : []);
const BY_OUTLINE = FRENCH ? OUTLINE : {};
// Everything a visitor may type for a country, folded (case and accents): its code, its
// catalogue name, its French name → the code the API filters on.
const TYPED = new Map(CATALOGUE.flatMap(([code, en, fr]) => [[fold(code), code], [fold(en), code], [fold(fr), code]]));

/** A country in the page's words, from its code or its catalogue / outline name. */
export function countryLabel(nameOrCode) {
  if (nameOrCode === null || nameOrCode === undefined || nameOrCode === '') return nameOrCode;
  const v = String(nameOrCode).trim();
  return BY_CODE.get(v.toUpperCase()) ?? BY_NAME.get(v) ?? BY_OUTLINE[v] ?? v;
}

/** The code of what a visitor typed ("Norvège", "norway", "no"), or null when it names no
 *  known country (the text is then sent as written, and the API compares it). */
export function countryCode(typed) {
  return TYPED.get(fold(String(typed ?? '').trim())) ?? null;
}
