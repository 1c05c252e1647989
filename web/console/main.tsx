/** Entry point of the operator console (docs/console.md): renders the app into the shell. */
import { render } from "preact";
import { App, startSession } from "./app.tsx";

startSession();
const root = document.getElementById("console-root");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
