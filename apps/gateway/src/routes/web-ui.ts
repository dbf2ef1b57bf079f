import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';

/**
 * The web UI's built files (apps/web/dist). Scripts only from this origin, never eval or
 * inline: Vite's output is one module script plus lazily imported chunks.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // CodeMirror writes a style attribute (tab-size) on its editor; attributes cannot run code,
  // <style> elements and style sheets from elsewhere stay refused.
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function defaultWebDistDir(): string {
  return path.resolve(__dirname, '../../../web/dist');
}

/** Serves the SPA at `/`; any non-API GET falls back to index.html so deep links survive a reload. */
export function webUiRoutes(distDir: string): Router {
  const router = Router();
  const index = path.join(distDir, 'index.html');
  if (!existsSync(index)) return router;
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    next();
  });
  // Hashed file names never change content, so they may be cached for good.
  router.use('/assets', express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  router.use('/assets', (_req, res) => {
    res.status(404).type('text/plain').send('Not found');
  });
  router.use(express.static(distDir, { index: false, maxAge: 0 }));
  router.get(/^\/(?!api\/).*/, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
