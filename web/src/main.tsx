import { render } from 'preact';
import { App } from './app';
import { applyPreferences } from './shared/preferences';
import './design/tokens.css';
import './styles.css';
import './design/shell.css';
import './design/tables.css';
import './design/charts.css';

applyPreferences();
render(<App />, document.getElementById('app')!);
