import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { applyStoredTheme } from './theme/apply-theme.js';
import './styles.css';
import './theme.css';

// Before the first render: a dark system (or a stored choice) never flashes light.
applyStoredTheme();

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
