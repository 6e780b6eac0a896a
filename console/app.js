import { api, session, whenUnauthorized } from './api.js';
import * as overview from './page-overview.js';
import * as actors from './page-actors.js';
import * as deadLetters from './page-dead-letters.js';
import * as tail from './page-tail.js';
import * as ussd from './page-ussd.js';
import * as ledger from './page-ledger.js';
import * as keys from './page-keys.js';

const pages = { overview, actors, 'dead-letters': deadLetters, tail, ussd, ledger, keys };
const $ = (id) => document.getElementById(id);
let unmount = () => {};

function showSignIn(message = '') {
  unmount();
  unmount = () => {};
  session.signOut();
  $('nav').hidden = true;
  $('page').replaceChildren();
  $('sign-in').hidden = false;
  $('sign-in-error').textContent = message;
  $('key').focus();
}

/** Shows the page the hash names (`#/actors`), Overview by default. */
function route() {
  if (!session.key()) return showSignIn();
  const name = location.hash.replace(/^#\//, '') || 'overview';
  const page = pages[name] ?? overview;
  $('sign-in').hidden = true;
  $('nav').hidden = false;
  for (const a of $('nav').querySelectorAll('a')) a.classList.toggle('active', a.getAttribute('href') === `#/${name}`);
  unmount();
  const el = $('page');
  el.replaceChildren();
  unmount = page.mount(el) ?? (() => {});
}

$('sign-in').addEventListener('submit', async (e) => {
  e.preventDefault();
  session.signIn($('key').value.trim());
  $('key').value = '';
  try {
    // A key that reads the operators' data is an admin key.
    await api('/v1/operator/overview');
    route();
  } catch (err) {
    showSignIn(
      err.status === 403
        ? 'This key is not an admin key.'
        : err.status === 401
          ? 'Unknown or revoked key.'
          : err.message,
    );
  }
});
$('sign-out').addEventListener('click', () => showSignIn());
whenUnauthorized(() => showSignIn('Your key is no longer accepted (revoked?). Sign in again.'));
window.addEventListener('hashchange', route);
route();
