// A small schema builder with typebox's `Type.*` names, producing plain JSON Schema. Used when
// an extension imports `typebox` (or `@sinclair/typebox`) and no real typebox is installed
// where it lives. Optional properties are remembered with a non-enumerable mark.
const OPTIONAL = Symbol.for("pi.bridge.optional");

const withOptions = (schema, options) => ({ ...schema, ...(options ?? {}) });

function markOptional(schema) {
  const copy = { ...schema };
  Object.defineProperty(copy, OPTIONAL, { value: true, enumerable: false });
  return copy;
}

function object(properties = {}, options) {
  const required = Object.keys(properties).filter((key) => !properties[key]?.[OPTIONAL]);
  const schema = { type: "object", properties };
  if (required.length) schema.required = required;
  return withOptions(schema, options);
}

export const Type = {
  Object: object,
  String: (options) => withOptions({ type: "string" }, options),
  Number: (options) => withOptions({ type: "number" }, options),
  Integer: (options) => withOptions({ type: "integer" }, options),
  Boolean: (options) => withOptions({ type: "boolean" }, options),
  Null: (options) => withOptions({ type: "null" }, options),
  Any: (options) => withOptions({}, options),
  Unknown: (options) => withOptions({}, options),
  Array: (items, options) => withOptions({ type: "array", items }, options),
  Optional: (schema) => markOptional(schema),
  Readonly: (schema) => schema,
  Union: (anyOf, options) => withOptions({ anyOf }, options),
  Intersect: (allOf, options) => withOptions({ allOf }, options),
  Literal: (value, options) => withOptions({ const: value, type: typeof value }, options),
  Enum: (values, options) => withOptions({ anyOf: Object.values(values).map((v) => ({ const: v })) }, options),
  Record: (_key, value, options) => withOptions({ type: "object", additionalProperties: value }, options),
  Tuple: (items, options) =>
    withOptions({ type: "array", prefixItems: items, items: false, minItems: items.length, maxItems: items.length }, options),
  Partial: (schema) => {
    const copy = { ...schema };
    delete copy.required;
    return copy;
  },
  Unsafe: (schema) => schema,
  Ref: (ref) => ({ $ref: typeof ref === "string" ? ref : ref.$id }),
};

export const Kind = Symbol.for("TypeBox.Kind");
export default { Type };
