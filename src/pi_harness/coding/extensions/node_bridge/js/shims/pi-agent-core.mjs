// Our stand-in for `@earendil-works/pi-agent-core`: extensions import only its types.
export {};
