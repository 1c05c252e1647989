/**
 * @module web/embed/styles
 * The overlays' stylesheet (popup, slide-in, button), applied inside embed.js's shadow root. The
 * colours are the intake page's accent (web/intake/intake.css), so the launcher and the page match.
 * Below 520 px the panels become a bottom sheet and the popup fills the screen but a margin.
 */
export const EMBED_CSS = `
:host{all:initial}
*{box-sizing:border-box}
.frame{display:block;flex:1;width:100%;min-height:0;border:0;background:#fff}
.bar{display:flex;align-items:center;justify-content:space-between;gap:8px;min-height:48px;padding:4px 6px 4px 16px;background:#0c6b63;color:#fff;font:600 15px/1.3 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.title{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.close{flex:none;width:40px;height:40px;border:0;border-radius:8px;background:transparent;color:inherit;font:400 26px/1 system-ui,sans-serif;cursor:pointer}
.close:hover{background:rgba(255,255,255,.16)}
button:focus-visible{outline:3px solid #7dd6cb;outline-offset:2px}
.popup{display:none;flex-direction:column;width:min(560px,calc(100vw - 32px));height:min(680px,calc(100vh - 48px));max-width:none;max-height:none;padding:0;border:0;border-radius:14px;overflow:hidden;background:#fff;box-shadow:0 24px 64px rgba(15,23,42,.35)}
.popup[open]{display:flex}
.popup:focus{outline:none}
.popup::backdrop{background:rgba(15,23,42,.55)}
.panel{position:fixed;z-index:2147483000;right:20px;bottom:20px;display:flex;flex-direction:column;width:min(400px,calc(100vw - 40px));height:min(620px,calc(100vh - 40px));border-radius:14px;overflow:hidden;background:#fff;box-shadow:0 16px 48px rgba(15,23,42,.32)}
.panel[hidden]{display:none}
.panel.button{bottom:88px;height:min(620px,calc(100vh - 112px))}
.launcher{position:fixed;z-index:2147483001;right:20px;bottom:20px;min-height:48px;padding:12px 20px;border:0;border-radius:999px;background:#0c6b63;color:#fff;font:600 15px/1.2 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;box-shadow:0 8px 24px rgba(15,23,42,.3);cursor:pointer}
.launcher:hover{background:#084f49}
@media (prefers-reduced-motion:no-preference){.panel:not([hidden]){animation:earshot-in .22s ease-out}.popup[open]{animation:earshot-in .18s ease-out}}
@keyframes earshot-in{from{opacity:0;transform:translateY(16px)}}
@media (max-width:520px){
.panel,.panel.button{right:0;bottom:0;width:100vw;height:88vh;border-radius:14px 14px 0 0}
.launcher[aria-expanded=true]{display:none}
.launcher{right:16px;bottom:16px}
.popup{width:calc(100vw - 16px);height:calc(100vh - 32px)}
}
`;
