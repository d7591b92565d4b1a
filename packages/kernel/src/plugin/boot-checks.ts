import { formatIssues } from '../errors/format-issues.js';
import semver from 'semver';
import { KernelError } from '../errors.js';
import type { PluginDefinition, StandardSchemaResult } from './plugin.js';

/**
 * Checks plugin metadata before any setup runs: shape, unique names, dependencies present,
 * supported kernel range.
 * @param plugins - the harness's plugins in registration order
 * @param kernelVersion - this kernel's version
 * @throws {KernelError} KERNEL_PLUGIN_INVALID / _DUPLICATE / _MISSING_DEPENDENCY / _VERSION_MISMATCH
 */
// biome-ignore lint/suspicious/noExplicitAny: metadata checks ignore the config type.
export function checkPluginMetadata(plugins: readonly PluginDefinition<any>[], kernelVersion: string): void {
  const seen = new Set<string>();
  for (const plugin of plugins) {
    if (typeof plugin !== 'object' || plugin === null || typeof plugin.name !== 'string' || plugin.name.length === 0) {
      throw new KernelError('KERNEL_PLUGIN_INVALID', 'Every plugin needs a non-empty string name (use definePlugin)');
    }
    if (typeof plugin.setup !== 'function') {
      throw new KernelError('KERNEL_PLUGIN_INVALID', `Plugin "${plugin.name}" has no setup function`, { plugin: plugin.name });
    }
    if (typeof plugin.version !== 'string' || semver.valid(plugin.version) === null) {
      throw new KernelError('KERNEL_PLUGIN_INVALID', `Plugin "${plugin.name}" has an invalid version ${JSON.stringify(plugin.version)}`, {
        plugin: plugin.name,
      });
    }
    if (seen.has(plugin.name)) {
      throw new KernelError('KERNEL_PLUGIN_DUPLICATE', `Plugin "${plugin.name}" is registered twice`, { plugin: plugin.name });
    }
    seen.add(plugin.name);
  }
  for (const plugin of plugins) {
    for (const dependency of plugin.dependencies ?? []) {
      if (!seen.has(dependency)) {
        throw new KernelError('KERNEL_PLUGIN_MISSING_DEPENDENCY', `Plugin "${plugin.name}" needs plugin "${dependency}", which is not registered`, {
          plugin: plugin.name,
          details: { dependency },
        });
      }
    }
    if (plugin.kernel !== undefined) {
      const range = semver.validRange(plugin.kernel);
      if (range === null || !semver.satisfies(kernelVersion, range, { includePrerelease: true })) {
        throw new KernelError(
          'KERNEL_PLUGIN_VERSION_MISMATCH',
          `Plugin "${plugin.name}" supports @troupe/kernel ${plugin.kernel}, but this is ${kernelVersion}`,
          { plugin: plugin.name, details: { supported: plugin.kernel, actual: kernelVersion } },
        );
      }
    }
  }
}

/**
 * Validates a plugin's config with its Standard Schema.
 * @returns the schema's output (or the raw config when there is no schema)
 * @throws {KernelError} KERNEL_PLUGIN_CONFIG_INVALID with every issue as `path: message`
 */
export async function validatePluginConfig<Config>(plugin: PluginDefinition<Config>): Promise<Config> {
  if (!plugin.configSchema) return plugin.config as Config;
  const result: StandardSchemaResult<Config> = await plugin.configSchema['~standard'].validate(plugin.config);
  if (!result.issues) return result.value;
  const issues = result.issues.map((issue) => formatIssues([issue], { root: 'config' }));
  throw new KernelError('KERNEL_PLUGIN_CONFIG_INVALID', `Invalid config for plugin "${plugin.name}": ${formatIssues(result.issues, { root: 'config' })}`, {
    plugin: plugin.name,
    details: { issues },
  });
}
