import type { Locale } from '../../shared/http/public-pages.js';

/**
 * The refund claim page's texts in the checkout's languages (English, German, Spanish); `{name}` placeholders are
 * filled with the checkout's `fill`. Language negotiation is the checkout's (`?lang=`, then `Accept-Language`).
 */
export interface ClaimMessages {
  readonly title: string;
  readonly intro: string;
  readonly refund: string;
  readonly networkFee: string;
  readonly youReceive: string;
  readonly tokenOn: string;
  readonly warning: string;
  readonly address: string;
  readonly confirmation: string;
  readonly memo: string;
  readonly once: string;
  readonly enterBy: string;
  readonly submit: string;
  readonly sentTo: string;
  readonly transaction: string;
  readonly open: string;
  readonly pending: string;
  readonly processing: string;
  readonly completed: string;
  readonly expired: string;
  readonly cancelled: string;
  readonly closed: string;
  readonly mismatch: string;
  readonly addressMissing: string;
  readonly invalidAddress: string;
  readonly memoInvalid: string;
  readonly belowMinimum: string;
  readonly alreadyClosed: string;
  readonly notFoundTitle: string;
  readonly notFoundText: string;
  readonly tooManyTitle: string;
  readonly tooManyText: string;
  readonly unavailableTitle: string;
  readonly unavailableText: string;
}

const en: ClaimMessages = {
  title: 'Your refund',
  intro: 'A merchant is refunding you. Enter the address the refund should be sent to.',
  refund: 'Refund',
  networkFee: 'Network fee',
  youReceive: 'You receive',
  tokenOn: '{token} on {network}',
  warning: 'Enter an address on {network} that can receive {token}. Anything sent to a wrong address is lost.',
  address: 'Your address',
  confirmation: 'The same address again',
  memo: 'Memo (destination tag)',
  once: 'Check the address: once set, it cannot be changed.',
  enterBy: 'Enter it by {date}.',
  submit: 'Send my refund to this address',
  sentTo: 'Address',
  transaction: 'Transaction',
  open: 'Waiting for your address',
  pending: 'Address received: your refund is pending and will be sent to it.',
  processing: 'Your refund is being sent.',
  completed: 'Your refund was sent.',
  expired: 'This refund link has expired. Please contact the merchant.',
  cancelled: 'This refund was cancelled by the merchant.',
  closed: 'This refund could not be sent. Please contact the merchant.',
  mismatch: 'The two addresses differ. Enter the same address twice.',
  addressMissing: 'Enter your address.',
  invalidAddress: 'This is not a valid {network} address.',
  memoInvalid: 'This network needs a valid memo (destination tag) with the address.',
  belowMinimum:
    'After the network fee for this address, the refund is below the {minimum} {token} it can be paid. Try another address or contact the merchant.',
  alreadyClosed: 'The address of this refund can no longer be entered.',
  notFoundTitle: 'Refund not found',
  notFoundText: 'This refund link is not valid. Check the link the merchant gave you.',
  tooManyTitle: 'Too many requests',
  tooManyText: 'Please wait a moment and reload the page.',
  unavailableTitle: 'Something went wrong',
  unavailableText: 'Please reload the page in a moment. Reference: {reference}.',
};

const de: ClaimMessages = {
  title: 'Ihre Rückerstattung',
  intro: 'Ein Händler erstattet Ihnen einen Betrag zurück. Geben Sie die Adresse ein, an die er gesendet werden soll.',
  refund: 'Rückerstattung',
  networkFee: 'Netzwerkgebühr',
  youReceive: 'Sie erhalten',
  tokenOn: '{token} auf {network}',
  warning: 'Geben Sie eine Adresse auf {network} an, die {token} empfangen kann. Beträge an eine falsche Adresse gehen verloren.',
  address: 'Ihre Adresse',
  confirmation: 'Dieselbe Adresse noch einmal',
  memo: 'Memo (Destination Tag)',
  once: 'Prüfen Sie die Adresse: Einmal gesetzt, kann sie nicht mehr geändert werden.',
  enterBy: 'Bitte bis {date} eingeben.',
  submit: 'Rückerstattung an diese Adresse senden',
  sentTo: 'Adresse',
  transaction: 'Transaktion',
  open: 'Wartet auf Ihre Adresse',
  pending: 'Adresse erhalten: Ihre Rückerstattung ist in Bearbeitung und wird an sie gesendet.',
  processing: 'Ihre Rückerstattung wird gesendet.',
  completed: 'Ihre Rückerstattung wurde gesendet.',
  expired: 'Dieser Rückerstattungslink ist abgelaufen. Bitte wenden Sie sich an den Händler.',
  cancelled: 'Diese Rückerstattung wurde vom Händler storniert.',
  closed: 'Diese Rückerstattung konnte nicht gesendet werden. Bitte wenden Sie sich an den Händler.',
  mismatch: 'Die beiden Adressen unterscheiden sich. Geben Sie zweimal dieselbe Adresse ein.',
  addressMissing: 'Geben Sie Ihre Adresse ein.',
  invalidAddress: 'Das ist keine gültige {network}-Adresse.',
  memoInvalid: 'Dieses Netzwerk braucht ein gültiges Memo (Destination Tag) zur Adresse.',
  belowMinimum:
    'Nach der Netzwerkgebühr für diese Adresse liegt die Rückerstattung unter den {minimum} {token}, die an sie gezahlt werden können. Versuchen Sie eine andere Adresse oder wenden Sie sich an den Händler.',
  alreadyClosed: 'Die Adresse dieser Rückerstattung kann nicht mehr eingegeben werden.',
  notFoundTitle: 'Rückerstattung nicht gefunden',
  notFoundText: 'Dieser Rückerstattungslink ist ungültig. Prüfen Sie den Link, den Ihnen der Händler gegeben hat.',
  tooManyTitle: 'Zu viele Anfragen',
  tooManyText: 'Bitte warten Sie einen Moment und laden Sie die Seite neu.',
  unavailableTitle: 'Etwas ist schiefgelaufen',
  unavailableText: 'Bitte laden Sie die Seite gleich neu. Referenz: {reference}.',
};

const es: ClaimMessages = {
  title: 'Su reembolso',
  intro: 'Un comercio le está reembolsando. Introduzca la dirección a la que se debe enviar el reembolso.',
  refund: 'Reembolso',
  networkFee: 'Comisión de red',
  youReceive: 'Usted recibe',
  tokenOn: '{token} en {network}',
  warning: 'Introduzca una dirección de {network} que pueda recibir {token}. Lo enviado a una dirección equivocada se pierde.',
  address: 'Su dirección',
  confirmation: 'La misma dirección otra vez',
  memo: 'Memo (etiqueta de destino)',
  once: 'Compruebe la dirección: una vez fijada, no se puede cambiar.',
  enterBy: 'Introdúzcala antes del {date}.',
  submit: 'Enviar mi reembolso a esta dirección',
  sentTo: 'Dirección',
  transaction: 'Transacción',
  open: 'Esperando su dirección',
  pending: 'Dirección recibida: su reembolso está pendiente y se enviará a ella.',
  processing: 'Su reembolso se está enviando.',
  completed: 'Su reembolso ha sido enviado.',
  expired: 'Este enlace de reembolso ha caducado. Póngase en contacto con el comercio.',
  cancelled: 'El comercio ha cancelado este reembolso.',
  closed: 'Este reembolso no se pudo enviar. Póngase en contacto con el comercio.',
  mismatch: 'Las dos direcciones no coinciden. Introduzca dos veces la misma dirección.',
  addressMissing: 'Introduzca su dirección.',
  invalidAddress: 'Esta no es una dirección válida de {network}.',
  memoInvalid: 'Esta red necesita un memo (etiqueta de destino) válido junto a la dirección.',
  belowMinimum:
    'Tras la comisión de red para esta dirección, el reembolso queda por debajo de los {minimum} {token} que se le pueden pagar. Pruebe otra dirección o contacte con el comercio.',
  alreadyClosed: 'Ya no se puede introducir la dirección de este reembolso.',
  notFoundTitle: 'Reembolso no encontrado',
  notFoundText: 'Este enlace de reembolso no es válido. Compruebe el enlace que le dio el comercio.',
  tooManyTitle: 'Demasiadas solicitudes',
  tooManyText: 'Espere un momento y vuelva a cargar la página.',
  unavailableTitle: 'Algo salió mal',
  unavailableText: 'Vuelva a cargar la página en un momento. Referencia: {reference}.',
};

export const CLAIM_MESSAGES: Readonly<Record<Locale, ClaimMessages>> = { en, de, es };
