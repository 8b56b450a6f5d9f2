import { InvalidArgumentError } from '../errors.js';

/** Maps a lock's resources to one label value; opt-in, since every distinct value is a time series. */
export type ResourceLabel = (resources: readonly string[]) => string;

/** Most distinct `resource` label values one adapter emits; the rest share `other`. */
export const kMaxResourceLabels = 100;
/** The label of a resource no template matches, and of every value past the cap. */
export const OTHER_RESOURCE = 'other';

/** A template's matcher: `*` is one `:` segment or part of one, and the template is the label (one series, many keys). */
function templateMatcher(template: string): RegExp {
  const escaped = template.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^:]*');
  return new RegExp(`^${escaped}$`);
}

/** Labels by the first template the lock's first resource matches, else `other`. */
function fromTemplates(templates: readonly string[], argument: string): ResourceLabel {
  templates.forEach((template, i) => {
    if (typeof template !== 'string' || template === '')
      throw new InvalidArgumentError(`${argument}[${i}]`, 'must be a non-empty template string such as "orders:*"', template);
  });
  const matchers = templates.map((template) => [templateMatcher(template), template] as const);
  return (resources) => matchers.find(([matcher]) => matcher.test(resources[0] ?? ''))?.[1] ?? OTHER_RESOURCE;
}

/** At most kMaxResourceLabels distinct values of `label`; later ones are `other`, so no label function can flood the backend. */
function capped(label: ResourceLabel): ResourceLabel {
  const seen = new Set<string>();
  return (resources) => {
    const value = label(resources);
    if (seen.has(value)) return value;
    if (seen.size >= kMaxResourceLabels) return OTHER_RESOURCE;
    seen.add(value);
    return value;
  };
}

/** `resourceLabel`: templates, a function, or `true` (resources joined by ','), capped at kMaxResourceLabels values. */
export function resolveResourceLabel(option: unknown, argument: string): ResourceLabel | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return capped((resources) => resources.join(','));
  if (typeof option === 'function') return capped(option as ResourceLabel);
  if (typeof option === 'string') return capped(fromTemplates([option], argument));
  if (Array.isArray(option) && option.length > 0) return capped(fromTemplates(option as readonly string[], argument));
  throw new InvalidArgumentError(argument,
    'must be a template such as "orders:*", a list of them, a function (resources) => label, or a boolean', option);
}
