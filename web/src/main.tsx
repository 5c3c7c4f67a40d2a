import { render } from 'preact';
import './styles.css';

render(<p>Orbit</p>, document.getElementById('app')!);
