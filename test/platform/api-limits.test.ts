import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { API_LIMITS, formatCount } from '../../src/platform/api-limits.js';
import { loadConfig } from '../../src/platform/config.js';
import { Harness } from '../helpers/harness.js';

const { prices, trial, links, stats, qr } = API_LIMITS;

test('the module holds the figures of API.md part 8', () => {
  assert.deepEqual(prices, { extraLinkCredits: 10, packCredits: 50, packVisits: 10_000 });
  assert.deepEqual(trial, { linksPerNetworkPerDay: 3, lifetimeDays: 7 });
  assert.deepEqual(links, {
    pageSize: 50,
    maxOffset: 100_000,
    searchMaxLength: 100,
    targetMaxLength: 2048,
    aliasMaxLength: 40,
    titleMaxLength: 100,
    tagsMaxLength: 160,
    exportMax: 100_000, // ours: most links in one CSV export
    importMaxRows: 500, // ours: most rows of one import, and aliases of one check
  });
  assert.deepEqual(stats, { minDays: 1, maxDays: 90, defaultDays: 30, topReferrers: 50 });
  assert.deepEqual(qr, {
    ...{ minSize: 256, maxSize: 2048, defaultSize: 768, logoMaxLength: 700_000, logoMaxSide: 512, minContrast: 4.5 },
    // ours: the saved design's call to action and print size
    ...{ callToActionMaxLength: 40, printMinCm: 2, printMaxCm: 50, defaultPrintCm: 5 },
  });
});

test('without variables the configurable limits are the module defaults', () => {
  assert.deepEqual(loadConfig({}).limits, API_LIMITS.defaults);
});

test('each configurable limit has its variable, named in the README with the module default', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const [name, value] of Object.entries(API_LIMITS.defaults)) {
    const variable = name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase();
    assert.equal(loadConfig({ [variable]: String(value + 1) }).limits[name as keyof typeof API_LIMITS.defaults], value + 1, variable);
    assert.match(readme, new RegExp(`^\\| \`${variable}\` \\|[^\\n]*\\| \`${value}\` \\|$`, 'm'), variable);
  }
});

type Schema = Record<string, any>;

/** A constant as JSON Schema says it: `const`, or (as the document shows it) an enum of one value. */
const constant = (schema: Schema): unknown => ('const' in schema ? schema.const : schema.enum?.length === 1 ? schema.enum[0] : undefined);

/** The OpenAPI document as served, with `$ref`s to its components followed. */
class Document {
  constructor(private readonly doc: Schema) {}

  resolve(node: Schema): Schema {
    const ref: unknown = node.$ref;
    if (typeof ref !== 'string') return node;
    return this.resolve(this.doc.components.schemas[ref.replace('#/components/schemas/', '')]);
  }

  operation(path: string, method: string): Schema {
    return this.doc.paths[path][method];
  }

  body(path: string, method: string): Schema {
    return this.resolve(this.operation(path, method).requestBody.content['application/json'].schema).properties;
  }

  query(path: string, method: string, name: string): Schema {
    return this.operation(path, method).parameters.find((p: Schema) => p.in === 'query' && p.name === name).schema;
  }

  response(path: string, method: string): Schema {
    const content = this.operation(path, method).responses['200'].content;
    return this.resolve(content['application/json'].schema).properties;
  }
}

describe('the OpenAPI document states the bounds of the limits module', () => {
  let h: Harness;
  let doc: Document;
  before(async () => {
    h = await Harness.start('sqlite');
    doc = new Document((await h.request('GET', '/openapi.json')).body);
  });
  after(async () => h.close());

  test('link fields, the list page and the extra-link price', () => {
    const create = doc.body('/links', 'post');
    assert.equal(create.target.maxLength, links.targetMaxLength);
    assert.equal(create.alias.maxLength, links.aliasMaxLength);
    assert.equal(create.title.maxLength, links.titleMaxLength);
    assert.equal(create.tags.maxLength, links.tagsMaxLength);
    assert.deepEqual(create.maxCredits.enum, [0, prices.extraLinkCredits]);
    const patch = doc.body('/links/{id}', 'patch');
    assert.deepEqual([patch.target.maxLength, patch.title.maxLength, patch.tags.maxLength], [links.targetMaxLength, links.titleMaxLength, links.tagsMaxLength]);
    assert.equal(doc.query('/links', 'get', 'offset').maximum, links.maxOffset);
    assert.equal(doc.query('/links', 'get', 'search').maxLength, links.searchMaxLength);
    assert.match(doc.operation('/links', 'get').summary, new RegExp(`\\b${links.pageSize} a page`));
  });

  test('the stats window and the referrers listed', () => {
    const days = doc.query('/links/{id}/stats', 'get', 'days');
    assert.deepEqual([days.minimum, days.maximum, days.default], [stats.minDays, stats.maxDays, stats.defaultDays]);
    assert.match(doc.response('/links/{id}/stats', 'get').referrers.description, new RegExp(`Top ${stats.topReferrers} `));
  });

  test('the QR size and logo bounds', () => {
    const body = doc.body('/links/{id}/qr', 'post');
    assert.deepEqual([body.size.minimum, body.size.maximum, body.size.default], [qr.minSize, qr.maxSize, qr.defaultSize]);
    assert.equal(body.logoPng.maxLength, qr.logoMaxLength);
    assert.match(body.logoPng.description, new RegExp(`${qr.logoMaxSide}×${qr.logoMaxSide}`));
  });

  test('the capacity pack and the trial allowance', () => {
    assert.equal(constant(doc.body('/links/capacity', 'post').maxCredits), prices.packCredits);
    const summary: string = doc.operation('/links/capacity', 'post').summary;
    assert.ok(summary.includes(formatCount(prices.packVisits)) && summary.includes(`${prices.packCredits} purchased credits`), summary);
    const allowance = doc.response('/trial', 'get');
    assert.deepEqual(
      [constant(allowance.dailyLinks), constant(allowance.expiresAfterDays), allowance.remaining.maximum],
      [trial.linksPerNetworkPerDay, trial.lifetimeDays, trial.linksPerNetworkPerDay],
    );
  });
});
