// A theme whose every styling function returns the text unchanged: what Pi's extensions get
// for `ctx.ui.theme` and the themes of pi-tui components, since the bridge renders plain text.
const identity = (...args) => String(args[args.length - 1] ?? "");
export const plainTheme = new Proxy(
  {},
  {
    get(_target, key) {
      if (key === "name") return "plain";
      if (typeof key === "symbol") return undefined;
      return identity;
    },
  },
);
