export { desktop, desktopBody, desktopCommand, type DesktopOptions } from './desktop.js';
