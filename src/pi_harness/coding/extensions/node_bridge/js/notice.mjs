// One-time notices (to the host, which shows them as warnings) for what the bridge cannot do.
import { send } from "./channel.mjs";

const shown = new Set();

export function noticeOnce(key, message) {
  if (shown.has(key)) return;
  shown.add(key);
  send({ t: "notice", message });
}
