// The web console (docs/console.md): mounted on the page the API serves at GET /.
import { render } from 'preact';
import { App } from './app.js';
import './style.css';

render(<App />, document.getElementById('app')!);
