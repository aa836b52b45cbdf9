// The worker behind <pe-lab> (lab-jobs.js has the protocol), so the page stays
// responsive while it trains. The page stops a run by terminating the worker.
import { trainer } from './lab-jobs.js';

const jobs = trainer((message) => postMessage(message));
onmessage = ({ data }) => jobs.handle(data);
