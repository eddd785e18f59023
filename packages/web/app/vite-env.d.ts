// Side-effect CSS imports (`import './styles.css'`) are bundled by Vite.
declare module '*.css';
