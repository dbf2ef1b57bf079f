import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * LibreOffice settings every profile of ours starts with, as a second wall behind the template
 * checks (which remove what would be fetched before LibreOffice sees it):
 * - BlockUntrustedRefererLinks: a document outside the trusted locations (there are none)
 *   may not load linked images or other resources;
 * - links are never updated on load (Writer's Update/Link 0 = never; Calc's 1 = never);
 * - macros never run (security level 3 = very high, execution disabled, no plugins).
 * Names and value meanings checked against LibreOffice 7.4's schema (share/.registry/main.xcd).
 */
export interface ProfileSetting {
  path: string;
  name: string;
  value: string;
}

const SETTINGS: ProfileSetting[] = [
  { path: '/org.openoffice.Office.Common/Security/Scripting', name: 'BlockUntrustedRefererLinks', value: 'true' },
  { path: '/org.openoffice.Office.Common/Security/Scripting', name: 'MacroSecurityLevel', value: '3' },
  { path: '/org.openoffice.Office.Common/Security/Scripting', name: 'DisableMacrosExecution', value: 'true' },
  { path: '/org.openoffice.Office.Common/Security/Scripting', name: 'ExecutePlugins', value: 'false' },
  { path: '/org.openoffice.Office.Common/Security/Scripting', name: 'CheckDocumentEvents', value: 'true' },
  { path: '/org.openoffice.Office.Writer/Content/Update', name: 'Link', value: '0' },
  { path: '/org.openoffice.Office.Calc/Content/Update', name: 'Link', value: '1' },
];

export const HARDENED_SETTINGS = SETTINGS;

/**
 * Writes the settings into a new profile directory (LibreOffice keeps them when it adds its own),
 * followed by `extra` ones (the performance settings). An extra setting may never replace a
 * hardening one: that is an error, not a silent override.
 */
export async function writeHardenedProfile(profileDir: string, extra: readonly ProfileSetting[] = []): Promise<void> {
  for (const setting of extra) {
    if (SETTINGS.some(({ path: itemPath, name }) => itemPath === setting.path && name === setting.name)) {
      throw new Error(`${setting.path}/${setting.name} is a hardening setting and cannot be changed`);
    }
  }
  const items = [...SETTINGS, ...extra].map(
    ({ path: itemPath, name, value }) => `<item oor:path="${itemPath}"><prop oor:name="${name}" oor:op="fuse"><value>${value}</value></prop></item>`,
  );
  const xcu = `<?xml version="1.0" encoding="UTF-8"?>\n<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n${items.join('\n')}\n</oor:items>\n`;
  await mkdir(path.join(profileDir, 'user'), { recursive: true });
  await writeFile(path.join(profileDir, 'user', 'registrymodifications.xcu'), xcu);
}

// What soffice needs from the worker's environment: where programs are, the locale, fonts.
const PASSED_THROUGH = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'FONTCONFIG_FILE', 'FONTCONFIG_PATH', 'XDG_CACHE_HOME'];

/**
 * The environment a LibreOffice (or its UNO bridge) is started with: a few variables it needs
 * and a home of its own (and, optionally, the allocator to preload), never the worker's own
 * (DATABASE_URL, REDIS_URL, keys, cloud credentials): a document that made LibreOffice run
 * something would find nothing to steal.
 */
export function sofficeEnvironment(home: string, temporaryDir = tmpdir(), allocator?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { HOME: home, TMPDIR: temporaryDir, PATH: '/usr/local/bin:/usr/bin:/bin' };
  for (const name of PASSED_THROUGH) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  if (allocator) env.LD_PRELOAD = allocator; // a malloc of our choosing (performance-profile.ts), never the worker's own LD_PRELOAD
  return env;
}
