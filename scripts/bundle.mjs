// One esbuild configuration for everything posenc bundles: ES modules, no
// eval, minified, for browsers. Used by the site build, the package entries
// (bundle-lib.mjs) and the package test.
import * as esbuild from 'esbuild';

export function build(options) {
  return esbuild.build({
    bundle: true,
    format: 'esm',
    minify: true,
    target: 'es2022',
    logLevel: 'silent',
    ...options,
  });
}
