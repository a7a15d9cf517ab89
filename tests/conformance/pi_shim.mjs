// RpcClient starts its agent as `node <cliPath> --mode rpc ...`. This is the cliPath that makes it
// start our `pi` instead: it runs $PI_CONFORMANCE_TARGET with the same arguments and the same
// stdin/stdout/stderr, passes SIGTERM/SIGINT on and exits with the child's code.
import { spawn } from "node:child_process";

const child = spawn(process.env.PI_CONFORMANCE_TARGET, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on("error", (error) => {
  process.stderr.write(`pi_shim: cannot start ${process.env.PI_CONFORMANCE_TARGET}: ${error.message}\n`);
  process.exit(127);
});
