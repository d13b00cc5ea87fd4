import { render } from 'preact';
import { App } from './app.js';
import { interceptLinks } from './router.js';
import { loadSession } from './session.js';
import './styles.css';

interceptLinks();
void loadSession();
render(<App />, document.getElementById('app')!);
